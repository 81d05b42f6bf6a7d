/*
 * collect_events.c - records uses of InnoDB's os_event API and declarations of event
 * objects, for the os-event rule (MDEV-21452).
 *
 * A use is a call to a listed API, named as the user wrote it: through MariaDB's
 * `#define os_event_wait(e) os_event_wait_low(e, 0)` the use is os_event_wait. Each use
 * names the event *object* it acts on as a key that is the same in every TU: the USR of
 * the global, static or field declaration the argument reaches after &, *, ->, . and [i]
 * are taken off (an element of an array of events is the array). A create's object is
 * what its result is assigned to. A local pointer or a parameter is not an object: its
 * uses are recorded with an empty key, and the rule still flags them.
 *
 * A declaration is an event object when its type, with pointers, arrays, references,
 * const and typedefs peeled off one level at a time, has a name listed in event_types.
 *
 * The event family's collector (hs_collector_events, registered in rules/registry.c);
 * its state lives here, and it adds "events" and "event_objects" to the facts.
 */
#define _GNU_SOURCE
#include "hotscan/ptrmap.h"
#include "hotscan/walk.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The collector's state for one TU. */
typedef struct {
    hs_walk *walk;
    json_t *events;         /* the facts' "events" */
    json_t *event_objects;  /* and "event_objects" */
    hs_ptrmap *event_types; /* type (data[0], kind) -> 1 + type_is_event: each field and
                               global of every header asks, most of the same few types */
    hs_ptrmap *callee_names; /* a callee's qualified name (the walk's string) -> 2 when it is
                                listed or names an event, else 1: asked for every call */
} event_state;

/* ---- small helpers ------------------------------------------------------------------ */

static char *spelling_of(CXCursor c)
{
    CXString s = clang_getCursorSpelling(c);
    char *r = hs_xstrdup(clang_getCString(s));
    clang_disposeString(s);
    return r;
}

static bool is_function_kind(enum CXCursorKind k)
{
    return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
           k == CXCursor_Destructor || k == CXCursor_ConversionFunction ||
           k == CXCursor_FunctionTemplate;
}

static bool is_ident_char(char ch)
{
    return ch == '_' || isalnum((unsigned char)ch);
}

/*
 * `name(...)` written at `offset` in `text`: sets *name_end past the identifier and
 * returns the offset past the matching ')', or *name_end when no '(' follows. Returns 0
 * when no identifier starts at `offset`. Strings, characters and comments are skipped.
 */
static unsigned invocation_end(const char *text, size_t size, unsigned offset, unsigned *name_end)
{
    unsigned i = offset;
    while (i < size && is_ident_char(text[i]))
        i++;
    *name_end = i;
    if (i == offset)
        return 0;
    unsigned j = i;
    while (j < size && isspace((unsigned char)text[j]))
        j++;
    if (j >= size || text[j] != '(')
        return i;
    int depth = 0;
    for (; j < size; j++) {
        char ch = text[j];
        if (ch == '"' || ch == '\'') {
            for (j++; j < size && text[j] != ch; j++)
                if (text[j] == '\\')
                    j++;
        } else if (ch == '/' && j + 1 < size && text[j + 1] == '/') {
            while (j < size && text[j] != '\n')
                j++;
        } else if (ch == '/' && j + 1 < size && text[j + 1] == '*') {
            for (j += 2; j + 1 < size && !(text[j] == '*' && text[j + 1] == '/'); j++)
                ;
            j++;
        } else if (ch == '(') {
            depth++;
        } else if (ch == ')' && --depth == 0) {
            return j + 1;
        }
    }
    return i;
}

/* Line and column of a byte offset in `file`. */
static void position_at(event_state *x, CXFile file, unsigned offset, hs_pos *pos)
{
    CXSourceLocation loc = hs_walk_location_at(x->walk, file, offset);
    clang_getSpellingLocation(loc, NULL, &pos->line, &pos->column, NULL);
    pos->offset = offset;
}

/* ---- event types ------------------------------------------------------------------- */

/* A type's spelling without const/volatile and struct/class/union, as listed in event_types. */
static bool type_name_listed(const hs_ruledata *rd, CXType t)
{
    CXString s = clang_getTypeSpelling(t);
    const char *name = clang_getCString(s);
    static const char *const prefixes[] = {"const ", "volatile ", "struct ", "class ", "union ",
                                           "enum "};
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
            size_t n = strlen(prefixes[i]);
            if (strncmp(name, prefixes[i], n) == 0) {
                name += n;
                again = true;
            }
        }
    }
    char *copy = hs_xstrdup(name);
    size_t n = strlen(copy);
    /* "os_event_t const" and "os_event_t volatile" */
    for (bool again = true; again;) {
        again = false;
        static const char *const suffixes[] = {" const", " volatile"};
        for (size_t i = 0; i < 2; i++) {
            size_t m = strlen(suffixes[i]);
            if (n >= m && strcmp(copy + n - m, suffixes[i]) == 0) {
                copy[n -= m] = '\0';
                again = true;
            }
        }
    }
    bool listed = hs_strmap_has(rd->event_types, copy);
    clang_disposeString(s);
    free(copy);
    return listed;
}

/* True when the type, peeled one level at a time, is a listed event type. */
static bool type_is_event(const hs_ruledata *rd, CXType t)
{
    for (int guard = 0; guard < 16 && t.kind != CXType_Invalid; guard++) {
        if (type_name_listed(rd, t))
            return true;
        switch (t.kind) {
        case CXType_Pointer:
        case CXType_LValueReference:
        case CXType_RValueReference:
            t = clang_getPointeeType(t);
            break;
        case CXType_ConstantArray:
        case CXType_IncompleteArray:
        case CXType_VariableArray:
        case CXType_DependentSizedArray:
            t = clang_getArrayElementType(t);
            break;
        case CXType_Elaborated:
            t = clang_Type_getNamedType(t);
            break;
        case CXType_Typedef:
            t = clang_getTypedefDeclUnderlyingType(clang_getTypeDeclaration(t));
            break;
        default: {
            CXType canon = clang_getCanonicalType(t);
            if (clang_equalTypes(canon, t))
                return false;
            t = canon;
            break;
        }
        }
    }
    return false;
}

static bool type_is_array(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
           t.kind == CXType_VariableArray || t.kind == CXType_DependentSizedArray;
}

/* type_is_event, once per type and TU (the same type is the same QualType, data[0]). */
static bool declared_event(event_state *x, CXType t)
{
    uintptr_t known = (uintptr_t)hs_ptrmap_get(x->event_types, t.data[0], (int)t.kind);
    if (known)
        return known == 2;
    bool event = type_is_event(hs_walk_ruledata(x->walk), t);
    hs_ptrmap_put(x->event_types, t.data[0], (int)t.kind, (void *)(uintptr_t)(event ? 2 : 1));
    return event;
}

/* ---- event objects ----------------------------------------------------------------- */

/* Globals, statics (at any scope) and class statics; not locals or parameters. */
static bool has_static_storage(CXCursor var)
{
    CXCursor p = clang_getCursorSemanticParent(var);
    enum CXCursorKind pk = hs_cursor_kind(p);
    if (is_function_kind(pk) || pk == CXCursor_LambdaExpr || pk == CXCursor_BlockExpr)
        return clang_Cursor_getStorageClass(var) == CX_SC_Static;
    return true;
}

static bool is_object_decl(CXCursor d)
{
    enum CXCursorKind k = hs_cursor_kind(d);
    return k == CXCursor_FieldDecl || (k == CXCursor_VarDecl && has_static_storage(d));
}

/* The record's name for display: its tag, else the typedef that names it, else "(anonymous)". */
static char *record_display_name(event_state *x, CXCursor record)
{
    char *name = spelling_of(record);
    if (name[0] && !strchr(name, '(') && !strchr(name, ' ')) {
        free(name);
        return hs_xstrdup(hs_qualified_name(x->walk, record));
    }
    free(name);
    CXString s = clang_getTypeSpelling(clang_getCursorType(record));
    const char *t = clang_getCString(s);
    if (strncmp(t, "struct ", 7) == 0)
        t += 7;
    else if (strncmp(t, "union ", 6) == 0)
        t += 6;
    else if (strncmp(t, "class ", 6) == 0)
        t += 6;
    char *r;
    if (t[0] && !strchr(t, '(')) {
        r = hs_xstrdup(t);
    } else {
        /* Truly anonymous: name it by its scope, `ns::(anonymous)`. */
        CXCursor scope = clang_getCursorSemanticParent(record);
        enum CXCursorKind k = hs_cursor_kind(scope);
        bool named_scope = k == CXCursor_Namespace || k == CXCursor_StructDecl ||
                           k == CXCursor_ClassDecl || k == CXCursor_UnionDecl;
        r = named_scope ? hs_printf("%s::(anonymous)", hs_qualified_name(x->walk, scope))
                        : hs_xstrdup("(anonymous)");
    }
    clang_disposeString(s);
    return r;
}

/* `buf_pool_t::no_flush[]`, `srv_monitor_event`, `ns::Cls::event`. */
static char *object_display_name(event_state *x, CXCursor decl)
{
    char *base;
    if (hs_cursor_kind(decl) == CXCursor_FieldDecl) {
        char *record = record_display_name(x, clang_getCursorSemanticParent(decl));
        char *field = spelling_of(decl);
        base = hs_printf("%s::%s", record, field);
        free(record);
        free(field);
    } else {
        base = hs_xstrdup(hs_qualified_name(x->walk, decl));
    }
    if (!type_is_array(clang_getCursorType(decl)))
        return base;
    char *r = hs_printf("%s[]", base);
    free(base);
    return r;
}

/* The initializer of a variable, or a null cursor. */
static CXCursor var_initializer(CXCursor var)
{
    hs_cursor_list kids;
    hs_children(var, &kids);
    CXCursor init = clang_getNullCursor();
    if (kids.len > 0 && clang_isExpression(hs_cursor_kind(kids.items[kids.len - 1])))
        init = kids.items[kids.len - 1];
    hs_cursor_list_free(&kids);
    return init;
}

/*
 * The declaration an expression reaches the event through, or a null cursor: &x, *x,
 * x[i], p->f, s.f lead to x or f. A local variable leads to what it was initialized
 * with (`os_event_t ev = buf_pool->no_flush[i];`), a parameter to nothing.
 */
static CXCursor object_decl(CXCursor e, int depth)
{
    if (depth > 8 || hs_cursor_is_null(e))
        return clang_getNullCursor();
    e = hs_strip_expr(e);
    switch (hs_cursor_kind(e)) {
    case CXCursor_UnaryOperator: {
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(e);
        if (op == CXUnaryOperator_AddrOf || op == CXUnaryOperator_Deref)
            return object_decl(hs_first_child(e), depth + 1);
        return clang_getNullCursor();
    }
    case CXCursor_ArraySubscriptExpr:
        return object_decl(hs_first_child(e), depth + 1);
    case CXCursor_MemberRefExpr:
    case CXCursor_DeclRefExpr: {
        CXCursor ref = clang_getCursorReferenced(e);
        enum CXCursorKind rk = hs_cursor_kind(ref);
        if (rk == CXCursor_FieldDecl)
            return ref;
        if (rk != CXCursor_VarDecl)
            return clang_getNullCursor();
        if (has_static_storage(ref))
            return ref;
        return object_decl(var_initializer(ref), depth + 1);
    }
    default:
        return clang_getNullCursor();
    }
}

/* ---- declarations ------------------------------------------------------------------ */

/*
 * Where a declaration's name is, when it is in the project: where a person changes the
 * declaration, and in a declarator list (`os_event_t a, b;`) each name's own offset.
 */
static bool declaration_pos(event_state *x, CXCursor decl, hs_pos *pos)
{
    hs_pos probe;
    if (!hs_cursor_pos(x->walk, decl, &probe, NULL))
        return false;
    clang_getExpansionLocation(clang_getCursorLocation(decl), NULL, &pos->line, &pos->column,
                               &pos->offset);
    pos->file = probe.file;
    return true;
}

static void on_declaration(event_state *x, CXCursor c)
{
    if (!is_object_decl(c) || !declared_event(x, clang_getCursorType(c)))
        return;
    hs_pos start, end;
    if (!declaration_pos(x, c, &start))
        return;
    char *name = spelling_of(c);
    end = start;
    end.column += (unsigned)strlen(name);
    end.offset += (unsigned)strlen(name);
    char *usr = hs_xstrdup(hs_cursor_usr_cached(x->walk, c));
    char *display = object_display_name(x, c);
    CXString type = clang_getTypeSpelling(clang_getCursorType(c));
    json_t *fact = json_object();
    json_object_set_new_nocheck(fact, "object", json_string(usr));
    json_object_set_new_nocheck(fact, "object_name", json_string(display));
    json_object_set_new_nocheck(fact, "type", json_string(clang_getCString(type)));
    json_object_set_new_nocheck(fact, "declaration_kind",
                        json_string(hs_cursor_kind(c) == CXCursor_FieldDecl ? "field" : "variable"));
    json_object_set_new_nocheck(fact, "definition", json_boolean(clang_isCursorDefinition(c)));
    json_object_set_new_nocheck(fact, "array", json_boolean(type_is_array(clang_getCursorType(c))));
    json_object_set_new_nocheck(fact, "function", json_string(""));
    hs_fact_set_position(fact, &start, &end);
    char *text = hs_cursor_source(x->walk, c);
    json_object_set_new_nocheck(fact, "text", json_string(text));
    json_array_append_new(x->event_objects, fact);
    free(text);
    clang_disposeString(type);
    free(display);
    free(usr);
    free(name);
}

/* ---- uses -------------------------------------------------------------------------- */

/* Facts already recorded for this function at this offset (one macro expansion). */
static unsigned uses_at(event_state *x, const char *function, unsigned offset)
{
    unsigned n = 0;
    for (size_t i = json_array_size(x->events); i-- > 0;) {
        json_t *f = json_array_get(x->events, i);
        if (strcmp(json_string_value(json_object_get(f, "function")), function) != 0)
            break;
        if ((unsigned)json_integer_value(json_object_get(f, "offset")) == offset)
            n++;
    }
    return n;
}

static bool same_cursor(CXCursor a, CXCursor b)
{
    return hs_cursor_kind(a) == hs_cursor_kind(b) &&
           clang_equalRanges(clang_getCursorExtent(a), clang_getCursorExtent(b));
}

static bool is_transparent(enum CXCursorKind k)
{
    return k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr || k == CXCursor_CStyleCastExpr ||
           k == CXCursor_CXXStaticCastExpr || k == CXCursor_CXXFunctionalCastExpr ||
           k == CXCursor_CXXReinterpretCastExpr || k == CXCursor_CXXConstCastExpr;
}

/* Depth-first search for `target` under `node`; on success `path` holds its ancestors. */
static bool find_path(CXCursor node, CXCursor target, hs_vec *path, int depth)
{
    if (depth > 256)
        return false;
    hs_cursor_list kids;
    hs_children(node, &kids);
    bool found = false;
    CXSourceRange tr = clang_getCursorExtent(target);
    CXFile tf;
    unsigned tb, te;
    clang_getExpansionLocation(clang_getRangeStart(tr), &tf, NULL, NULL, &tb);
    clang_getExpansionLocation(clang_getRangeEnd(tr), NULL, NULL, NULL, &te);
    for (unsigned i = 0; i < kids.len && !found; i++) {
        CXCursor k = kids.items[i];
        if (same_cursor(k, target)) {
            CXCursor *p = hs_xmalloc(sizeof *p);
            *p = node;
            hs_vec_push(path, p);
            found = true;
            break;
        }
        /* Only descend into children whose range holds the target. */
        CXSourceRange kr = clang_getCursorExtent(k);
        CXFile kf;
        unsigned kb, ke;
        clang_getExpansionLocation(clang_getRangeStart(kr), &kf, NULL, NULL, &kb);
        clang_getExpansionLocation(clang_getRangeEnd(kr), NULL, NULL, NULL, &ke);
        if (kf != tf || kb > tb || ke < te)
            continue;
        CXCursor *p = hs_xmalloc(sizeof *p);
        *p = node;
        hs_vec_push(path, p);
        if (find_path(k, target, path, depth + 1)) {
            found = true;
            break;
        }
        free(path->items[--path->len]);
    }
    hs_cursor_list_free(&kids);
    return found;
}

/*
 * What a create's result is stored in: `x = os_event_create(0)`, `os_event_t x =
 * os_event_create(0)`, a constructor's `m_event(os_event_create(0))` or a member's
 * default initializer. The search starts at `root` (the TU: libclang gives an expression
 * no parent) and descends only into cursors whose range holds the call.
 */
static CXCursor create_target(CXCursor root, CXCursor call)
{
    CXCursor result = clang_getNullCursor();
    if (hs_cursor_is_null(root) || clang_isInvalid(hs_cursor_kind(root)))
        return result;
    hs_vec path = {0};
    if (!find_path(root, call, &path, 0)) {
        hs_vec_free(&path);
        return result;
    }
    /* Walk up through parens, casts and implicit nodes. */
    CXCursor below = call;
    size_t i = path.len;
    while (i > 0 && is_transparent(hs_cursor_kind(*(CXCursor *)path.items[i - 1]))) {
        below = *(CXCursor *)path.items[i - 1];
        i--;
    }
    if (i > 0) {
        CXCursor parent = *(CXCursor *)path.items[i - 1];
        enum CXCursorKind pk = hs_cursor_kind(parent);
        hs_cursor_list kids;
        hs_children(parent, &kids);
        if ((pk == CXCursor_BinaryOperator &&
             clang_getCursorBinaryOperatorKind(parent) == CXBinaryOperator_Assign) &&
            kids.len == 2 && same_cursor(kids.items[1], below)) {
            result = object_decl(kids.items[0], 0);
        } else if (pk == CXCursor_VarDecl || pk == CXCursor_FieldDecl) {
            if (is_object_decl(parent))
                result = parent;
        } else if (is_function_kind(pk)) {
            /* Constructor initializers come as a MemberRef followed by the value. */
            for (unsigned k = 1; k < kids.len; k++) {
                if (same_cursor(kids.items[k], below) &&
                    hs_cursor_kind(kids.items[k - 1]) == CXCursor_MemberRef) {
                    CXCursor field = clang_getCursorReferenced(kids.items[k - 1]);
                    if (hs_cursor_kind(field) == CXCursor_FieldDecl)
                        result = field;
                }
            }
        }
        hs_cursor_list_free(&kids);
    }
    for (size_t k = 0; k < path.len; k++)
        free(path.items[k]);
    hs_vec_free(&path);
    return result;
}

/* Exact source between two offsets of a file, or "" when out of range. */
static char *file_slice(event_state *x, CXFile file, unsigned from, unsigned to)
{
    size_t size = 0;
    const char *text = hs_walk_file_contents(x->walk, file, &size);
    if (!text || to > size || to < from)
        return hs_xstrdup("");
    return hs_xstrndup(text + from, to - from);
}

/* An argument's text as written, also when it sits in a macro invocation's arguments. */
static char *argument_text(event_state *x, CXCursor arg)
{
    arg = hs_strip_expr(arg); /* `(e)` of a macro body around the argument as written */
    CXSourceRange r = clang_getCursorExtent(arg);
    CXFile fb, fe, xb;
    unsigned ob, oe, xo;
    clang_getSpellingLocation(clang_getRangeStart(r), &fb, NULL, NULL, &ob);
    clang_getSpellingLocation(clang_getRangeEnd(r), &fe, NULL, NULL, &oe);
    clang_getExpansionLocation(clang_getRangeStart(r), &xb, NULL, NULL, &xo);
    if (fb && fb == fe && fb == xb && oe > ob && (ob != xo || oe - ob < 4096))
        return file_slice(x, fb, ob, oe);
    return hs_cursor_source(x->walk, arg);
}

static enum CXChildVisitResult find_overloaded_ref(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (hs_cursor_kind(c) == CXCursor_OverloadedDeclRef && clang_getNumOverloadedDecls(c) > 0) {
        *(CXCursor *)data = clang_getOverloadedDecl(c, 0);
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

/*
 * The function a call names. In a template, a call with dependent arguments is not
 * resolved: its callee is the first candidate of the overload set it names.
 */
static CXCursor dependent_callee(CXCursor callee, CXCursor call)
{
    if (!hs_cursor_is_null(callee) && is_function_kind(hs_cursor_kind(callee)))
        return callee;
    CXCursor callee_expr = hs_first_child(call);
    CXCursor found = clang_getNullCursor();
    if (!hs_cursor_is_null(callee_expr))
        clang_visitChildren(callee_expr, find_overloaded_ref, &found);
    if (!hs_cursor_is_null(found) && is_function_kind(hs_cursor_kind(found)))
        return found;
    return clang_getNullCursor();
}

/*
 * The name of the macro whose definition holds `offset` of `file` (the spelling of a
 * token that came from a macro body), read from the `#define NAME` that starts its
 * logical line; NULL when the line is not a definition.
 */
static char *defining_macro(event_state *x, CXFile file, unsigned offset)
{
    size_t size = 0;
    const char *text = hs_walk_file_contents(x->walk, file, &size);
    if (!text || offset >= size)
        return NULL;
    size_t i = offset;
    for (;;) {
        while (i > 0 && text[i - 1] != '\n')
            i--;
        /* A continued line: the definition starts on an earlier one. */
        size_t j = i >= 2 ? i - 2 : 0;
        if (i >= 2 && text[j] == '\r' && j > 0)
            j--;
        if (i >= 2 && text[j] == '\\') {
            i = j;
            continue;
        }
        break;
    }
    while (i < size && (text[i] == ' ' || text[i] == '\t'))
        i++;
    if (i >= size || text[i] != '#')
        return NULL;
    for (i++; i < size && (text[i] == ' ' || text[i] == '\t'); i++)
        ;
    if (size - i < 7 || strncmp(text + i, "define", 6) != 0 || !isspace((unsigned char)text[i + 6]))
        return NULL;
    for (i += 6; i < size && (text[i] == ' ' || text[i] == '\t'); i++)
        ;
    size_t start = i;
    while (i < size && is_ident_char(text[i]))
        i++;
    return i > start ? hs_xstrndup(text + start, i - start) : NULL;
}

typedef struct {
    const hs_event_api *api;
    const char *api_name;   /* as written: the macro's name or the callee's */
    bool from_macro;
    bool callee_listed;     /* the function called is itself a listed API */
    bool have_range;        /* start/end/text below override the call's extent */
    hs_pos start, end;
    char *text;
} event_use;

/* Works out which listed API a call is, as the user wrote it. */
static bool identify_use(event_state *x, CXCursor call, const char *function, event_use *u)
{
    memset(u, 0, sizeof *u);
    CXCursor callee = dependent_callee(clang_getCursorReferenced(call), call);
    char *callee_name = hs_cursor_is_null(callee) ? hs_xstrdup("")
                                                    : hs_xstrdup(hs_qualified_name(x->walk, callee));
    const hs_ruledata *rd = hs_walk_ruledata(x->walk);
    const hs_event_api *callee_api = callee_name[0] ? hs_ruledata_find_event(rd, callee_name) : NULL;
    u->callee_listed = callee_api != NULL;

    CXSourceLocation loc = hs_cursor_start(call);
    CXFile sf, ef;
    unsigned soff, eoff;
    clang_getSpellingLocation(loc, &sf, NULL, NULL, &soff);
    clang_getExpansionLocation(loc, &ef, NULL, NULL, &eoff);
    hs_pos probe;
    if (!hs_cursor_pos(x->walk, call, &probe, NULL)) {
        free(callee_name);
        return false;
    }
    size_t size = 0;
    const char *text = hs_walk_file_contents(x->walk, ef, &size);
    bool in_macro = sf != ef || soff != eoff;
    if (in_macro && text) {
        unsigned name_end = 0;
        unsigned inv_end = invocation_end(text, size, eoff, &name_end);
        bool from_argument = sf == ef && inv_end > 0 && soff >= name_end && soff < inv_end;
        if (from_argument) {
            /* Written in full inside another macro's arguments (ut_a(os_event_is_set(e))). */
            unsigned call_name_end = 0;
            unsigned call_end = invocation_end(text, size, soff, &call_name_end);
            if (callee_api && call_end > call_name_end) {
                u->have_range = true;
                u->start.file = u->end.file = probe.file;
                position_at(x, ef, soff, &u->start);
                position_at(x, ef, call_end, &u->end);
                u->text = hs_xstrndup(text + soff, call_end - soff);
            }
        } else if (inv_end > 0) {
            /* The macro whose body spells the call (os_event_wait for os_event_wait_low, also
             * when reached through a project macro), else the macro the user wrote. */
            char *inner = sf != NULL ? defining_macro(x, sf, soff) : NULL;
            char *outer = hs_xstrndup(text + eoff, name_end - eoff);
            const hs_event_api *macro_api = inner ? hs_ruledata_find_event(rd, inner) : NULL;
            if (!macro_api)
                macro_api = hs_ruledata_find_event(rd, outer);
            /* A listed macro: the call it expands to is the use, once per invocation. */
            if (macro_api && (callee_api || uses_at(x, function, eoff) == 0)) {
                u->api = macro_api;
                u->api_name = macro_api->name;
                u->from_macro = true;
            }
            if (u->api || callee_api) {
                /* The range is the invocation the user wrote: `LOCK_WAIT(lock->event)`. */
                u->have_range = true;
                u->start.file = u->end.file = probe.file;
                position_at(x, ef, eoff, &u->start);
                position_at(x, ef, inv_end, &u->end);
                u->text = hs_xstrndup(text + eoff, inv_end - eoff);
            }
            free(inner);
            free(outer);
        }
    }
    if (!u->api && callee_api) {
        u->api = callee_api;
        u->api_name = callee_api->name;
    }
    free(callee_name);
    return u->api != NULL;
}

static void on_call(event_state *x, CXCursor call)
{
    const char *function = hs_walk_function_usr(x->walk) ? hs_walk_function_usr(x->walk) : "";
    const char *function_name = hs_walk_function_name(x->walk) ? hs_walk_function_name(x->walk) : "";
    event_use u;
    if (!identify_use(x, call, function, &u))
        return;
    hs_pos start, end;
    char *text;
    if (u.have_range) {
        start = u.start;
        end = u.end;
        text = u.text;
    } else {
        if (!hs_cursor_pos(x->walk, call, &start, &end))
            return;
        text = hs_cursor_source(x->walk, call);
    }
    /* The event object: the argument's declaration, or a create's destination. */
    CXCursor decl = clang_getNullCursor();
    char *object_text = NULL;
    int nargs = clang_Cursor_getNumArguments(call);
    if (strcmp(u.api->kind, "create") == 0) {
        decl = create_target(clang_getTranslationUnitCursor(hs_walk_tu(x->walk)), call);
    } else if (u.api->object_arg >= 0) {
        /* A listed macro that expands to a method call, `#define os_event_wait_low(e, r)
         * (e)->wait(r)`: the event is the object the method is called on, and the call's
         * arguments are not the macro's. Otherwise the event is the listed argument. */
        CXCursor member = hs_strip_expr(hs_first_child(call));
        CXCursor arg = clang_getNullCursor();
        if (u.from_macro && !u.callee_listed && hs_cursor_kind(member) == CXCursor_MemberRefExpr)
            arg = hs_first_child(member);
        else if (u.api->object_arg < nargs)
            arg = clang_Cursor_getArgument(call, (unsigned)u.api->object_arg);
        if (!hs_cursor_is_null(arg)) {
            decl = object_decl(arg, 0);
            object_text = argument_text(x, arg);
        }
    }
    char *object = hs_cursor_is_null(decl) ? hs_xstrdup("") : hs_xstrdup(hs_cursor_usr_cached(x->walk, decl));
    char *object_name = hs_cursor_is_null(decl) ? hs_xstrdup("") : object_display_name(x, decl);

    json_t *fact = json_object();
    json_object_set_new_nocheck(fact, "api", json_string(u.api_name));
    json_object_set_new_nocheck(fact, "kind", json_string(u.api->kind));
    json_object_set_new_nocheck(fact, "object", json_string(object));
    json_object_set_new_nocheck(fact, "object_name", json_string(object_name));
    json_object_set_new_nocheck(fact, "object_text", json_string(object_text ? object_text : ""));
    /* Where the object is declared, for objects whose type is not a listed event type
     * (a project's HANDLE events): the rule points there when no declaration fact does. */
    hs_pos dpos;
    if (!hs_cursor_is_null(decl) && declaration_pos(x, decl, &dpos))
        json_object_set_new_nocheck(fact, "object_declaration",
                            json_pack("{s:s, s:I, s:I}", "file", dpos.file, "line",
                                      (json_int_t)dpos.line, "column", (json_int_t)dpos.column));
    json_object_set_new_nocheck(fact, "function", json_string(function));
    json_object_set_new_nocheck(fact, "function_name", json_string(function_name));
    json_object_set_new_nocheck(fact, "macro", json_boolean(u.from_macro));
    hs_fact_set_position(fact, &start, &end);
    json_object_set_new_nocheck(fact, "text", json_string(text));
    json_object_set_new_nocheck(fact, "ordinal", json_integer(uses_at(x, function, start.offset)));
    json_array_append_new(x->events, fact);
    free(text);
    free(object_text);
    free(object);
    free(object_name);
}

/* Calls in a global's or a member's initializer, which the function walk never sees. */
static enum CXChildVisitResult initializer_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (hs_cursor_kind(c) == CXCursor_CallExpr)
        on_call(data, c);
    return CXChildVisit_Recurse;
}

/*
 * A cheap first look: can this call be a listed event API at all? Its callee or the
 * macro at its expansion site must be listed, or name an event. Most calls are not,
 * and identify_use's macro analysis is not cheap.
 */
static bool may_be_event_call(event_state *x, CXCursor call)
{
    CXCursor callee = clang_getCursorReferenced(call);
    if (hs_cursor_is_null(callee))
        return true; /* a dependent call: let identify_use decide */
    const hs_ruledata *rd = hs_walk_ruledata(x->walk);
    const char *name = hs_qualified_name(x->walk, callee); /* one string per declaration and TU */
    uintptr_t named = (uintptr_t)hs_ptrmap_get(x->callee_names, name, 0);
    if (!named) {
        named = hs_ruledata_find_event(rd, name) || strcasestr(name, "event") ? 2 : 1;
        hs_ptrmap_put(x->callee_names, name, 0, (void *)named);
    }
    if (named == 2)
        return true;
    CXFile ef;
    unsigned eoff;
    if (!hs_location_in_macro(hs_cursor_start(call), &ef, &eoff))
        return false;
    size_t size = 0;
    const char *text = ef ? hs_walk_file_contents(x->walk, ef, &size) : NULL;
    size_t n = hs_identifier_length(text, size, eoff);
    char *macro = text ? strndup(text + eoff, n) : NULL;
    bool maybe = !macro || hs_ruledata_find_event(rd, macro) || strcasestr(macro, "event");
    free(macro);
    return maybe;
}

/* A cursor of a function body (calls, local statics), or a declaration outside any. */
static void on_cursor(event_state *x, CXCursor c)
{
    enum CXCursorKind k = hs_cursor_kind(c);
    if (k == CXCursor_CallExpr && hs_walk_function_name(x->walk)) {
        if (!may_be_event_call(x, c))
            return;
        /* The API's own implementation is not a use of it. */
        if (hs_ruledata_find_event(hs_walk_ruledata(x->walk), hs_walk_function_name(x->walk)))
            return;
        on_call(x, c);
        return;
    }
    if (k != CXCursor_VarDecl && k != CXCursor_FieldDecl)
        return;
    on_declaration(x, c);
    if (!hs_walk_function_usr(x->walk)) {
        clang_visitChildren(c, initializer_visitor, x);
    }
}

static void events_cursor(void *state, hs_walk *w, CXCursor c)
{
    (void)w;
    on_cursor(state, c);
}

static void events_declaration(void *state, hs_walk *w, CXCursor decl)
{
    (void)w;
    on_cursor(state, decl);
}

static void *events_tu_start(hs_walk *w)
{
    event_state *x = hs_xcalloc(1, sizeof *x);
    x->walk = w;
    x->events = json_array();
    x->event_objects = json_array();
    x->event_types = hs_ptrmap_create();
    x->callee_names = hs_ptrmap_create();
    return x;
}

static void events_tu_end(void *state, hs_walk *w, json_t *facts)
{
    (void)w;
    event_state *x = state;
    json_object_set_new_nocheck(facts, "events", x->events);
    json_object_set_new_nocheck(facts, "event_objects", x->event_objects);
    hs_ptrmap_delete(x->event_types);
    hs_ptrmap_delete(x->callee_names);
    free(x);
}

const hs_collector hs_collector_events = {
    .family = "events",
    .tu_start = events_tu_start,
    .tu_end = events_tu_end,
    .cursor = events_cursor,
    .declaration = events_declaration,
};

/*
 * atomic_seqcst_counter.c - atomic-seqcst-counter: sequentially consistent operations on
 * an atomic variable that the whole program uses only as a counter (MySQL bug 100432:
 * relaxed performance-schema counters gave +7-12% on ARM, +1-3% on x86).
 *
 * A variable is a counter when something adds to it, and every use anywhere is an
 * add/sub whose result is discarded or used only as a value (an index, a ticket), a
 * load, or a store of a constant (a reset). It is not a counter when anywhere it is
 * compared-and-swapped, exchanged, used with bitwise operations, waited on; when an
 * add/sub result decides a condition, or a decrement's result is used at all (the
 * reference-count signature); when it stores computed values or is loaded in a loop
 * condition (a flag or a publish/consume signal); or when its address escapes.
 */
#include "hotscan/common.h"
#include "hotscan/discover.h" /* hs_is_source_file */
#include "hotscan/findings.h"
#include "hotscan/fixits.h"
#include "hotscan/rules.h"
#include "hotscan/strmap.h"
#include "atomic_facts.h"
#include "atomic_vars.h"

#include <stdlib.h>
#include <string.h>

/* A string the facts may leave out, as the rule reads it. */
static const char *or_empty(const char *s)
{
    return s ? s : "";
}

static bool is_parameter(const char *var)
{
    return strncmp(or_empty(var), "param:", 6) == 0;
}

static bool is_add_or_sub(const hs_atomic_op *u)
{
    return u->op == HS_AOP_FETCH_ADD || u->op == HS_AOP_ADD_FETCH || u->op == HS_AOP_FETCH_SUB ||
           u->op == HS_AOP_SUB_FETCH;
}

static bool is_sub(const hs_atomic_op *u)
{
    return u->op == HS_AOP_FETCH_SUB || u->op == HS_AOP_SUB_FETCH;
}

/* "file.c:LINE", the base name of `file`. */
static char *where(const char *file, long long line)
{
    file = or_empty(file);
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    return hs_printf("%s:%lld", base, line);
}

/* Why a TU's plain (non-atomic) uses show the variable is not a counter, or NULL.
 * `reservations`: as for disqualifies. */
static char *plain_disqualifies(const hs_atomic_plain *counts, bool reservations)
{
    char *at = NULL, *r = NULL;
    if (counts->loads_bounds_index.count && !reservations) {
        at = where(counts->loads_bounds_index.first.file, counts->loads_bounds_index.first.line);
        r = hs_printf("it bounds an index into an array, as a count that publishes the slots it counts "
                      "does (%s)", at);
    } else if (counts->loads_loop_condition.count) {
        at = where(counts->loads_loop_condition.first.file, counts->loads_loop_condition.first.line);
        r = hs_printf("it is read in a loop condition, as a flag or a signal is (%s)", at);
    } else if (counts->writes_computed.count) {
        at = where(counts->writes_computed.first.file, counts->writes_computed.first.line);
        r = hs_printf("it is also written non-atomically with computed values (%s)", at);
    } else if (counts->address_taken.count) {
        at = where(counts->address_taken.first.file, counts->address_taken.first.line);
        r = hs_printf("its address escapes to code hotscan does not follow (%s)", at);
    }
    free(at);
    return r;
}

/* A store of the enclosing function's parameter, as given (`SetTickerCount(t, count)` doing
 * `tickers_[t].store(count)`): a setter of a new total, a reset when nothing tests the value.
 * Not a wrapper's operation applied at a call (`via`): its callers pass any value. */
static bool is_setter(const hs_atomic_op *u)
{
    return u->op == HS_AOP_STORE && u->value_parameter && !u->via;
}

/* A use whose value decides a condition: a load in an if, ?:, comparison or loop (also
 * through an accessor or a local), or a plain read there. */
static bool decides_on_value(const hs_atomic_op *u)
{
    if (u->op == HS_AOP_PLAIN)
        return u->plain->loads_condition.count || u->plain->loads_loop_condition.count;
    return u->op == HS_AOP_LOAD && (u->use == HS_AUSE_CONDITION || u->use == HS_AUSE_LOOP_CONDITION ||
                                    u->use == HS_AUSE_VERSION_CHECK);
}

/*
 * Why this use shows the variable is not a counter, or NULL when it is a counter use.
 * `reservations`: every add of the variable hands out its value (`index = counter++`, a
 * ring-buffer slot reserved before it is filled), so a load that bounds a reader's scan
 * (`limit = index.load() % size; while (i < limit)`) or an index (`if (k > count) return;
 * use(a[k])`) reads nothing the count published.
 */
static char *disqualifies(const hs_atomic_op *u, bool reservations)
{
    if (u->op == HS_AOP_PLAIN)
        return plain_disqualifies(u->plain, reservations);
    const char *why = NULL;
    switch (u->op) {
    case HS_AOP_CAS: why = "it is compared-and-swapped"; break;
    case HS_AOP_EXCHANGE: why = "it is exchanged"; break;
    case HS_AOP_BITWISE: why = "it takes bitwise operations, like a set of flags"; break;
    case HS_AOP_WAIT: why = "it is waited on or notified"; break;
    case HS_AOP_ESCAPE: why = "its address or reference escapes to code hotscan does not follow"; break;
    case HS_AOP_OTHER: why = "it takes an operation hotscan does not model"; break;
    default: break;
    }
    bool condition = u->use == HS_AUSE_CONDITION || u->use == HS_AUSE_LOOP_CONDITION;
    if (!why) {
        /* `if (++used > max)`: an admission count held to a limit decides nothing else. */
        bool limit = u->use == HS_AUSE_CONDITION && u->limit_test && !is_sub(u);
        if (is_add_or_sub(u) && condition && !limit)
            why = "an add/sub result decides a condition";
        else if (is_sub(u) && u->use != HS_AUSE_DISCARDED && !u->dead_store)
            why = "a decrement's result is used, as a reference count's is";
        else if (u->op == HS_AOP_STORE && !u->value_constant && !is_setter(u))
            why = "it stores computed values, like a flag or a published value";
        else if (u->op == HS_AOP_LOAD && u->bounds_index && !reservations)
            why = "it bounds an index into an array, as a count that publishes the slots it counts does";
        else if (u->op == HS_AOP_LOAD && u->use == HS_AUSE_VERSION_CHECK)
            why = "its value is compared for equality or masked, as a sequence lock's or a version "
                  "number's is";
        else if (u->op == HS_AOP_LOAD && u->use == HS_AUSE_LOOP_CONDITION && reservations &&
                 (u->through_sink || u->limit_test))
            why = NULL;
        else if (u->op == HS_AOP_LOAD && u->use == HS_AUSE_LOOP_CONDITION && u->form == HS_AFORM_ACCESSOR &&
                 u->api && strcmp(u->api, "dependent member") == 0)
            why = "a template tests a member of this name in a loop condition, as a wait for it is";
        else if (u->op == HS_AOP_LOAD && u->use == HS_AUSE_LOOP_CONDITION && u->form == HS_AFORM_ACCESSOR)
            why = "a function that returns its value is called in a loop condition, as a wait for it is";
        else if (u->op == HS_AOP_LOAD && u->use == HS_AUSE_LOOP_CONDITION)
            why = "it is loaded in a loop condition, as a flag or a signal is";
    }
    if (!why)
        return NULL;
    char *at = where(u->site.file, (long long)u->site.line);
    char *r = hs_printf("%s (%s)", why, at);
    free(at);
    return r;
}

/* A variable as the rule judges it (atomic_vars.h). */
typedef hs_atomic_var variable;

static char *usage_summary(const hs_judge_ctx *ctx, const hs_atomic_store *atomics, const char *var,
                           const variable *v)
{
    size_t adds = 0, loads = 0, resets = 0;
    const hs_place *plain_read = NULL; /* the first non-atomic read, which the loads leave out */
    const hs_place *plain_update = NULL; /* the first non-atomic update, which the adds leave out */
    hs_strmap *files = hs_strmap_create();
    for (size_t i = 0; i < v->judged.len; i++) {
        const hs_atomic_op *u = v->judged.items[i];
        if (u->op == HS_AOP_PLAIN && u->plain->reads.count && u->plain->reads.first.file && !plain_read)
            plain_read = &u->plain->reads.first;
        if (u->op == HS_AOP_PLAIN && u->plain->updates.count && u->plain->updates.first.file && !plain_update)
            plain_update = &u->plain->updates.first;
        if (u->op == HS_AOP_PLAIN || u->op == HS_AOP_INACTIVE)
            continue;
        if (is_add_or_sub(u))
            adds++;
        else if (u->op == HS_AOP_LOAD)
            loads++;
        else if (u->op == HS_AOP_STORE)
            resets++;
        hs_strmap_put(files, or_empty(u->site.file), (void *)1);
    }
    /* The TUs that saw it, of all the program's (or, with a database, the database's). */
    size_t tus = hs_atomic_tu_count(atomics, var);
    size_t all = ctx->tus_in_database ? ctx->tus_in_database : ctx->program->translation_units;
    /* Plain reads are not counted (a header's counts once per TU including it), but said:
     * "0 loads" of a variable other code reads directly would misstate the evidence. */
    char *at = plain_read ? where(plain_read->file, (long long)plain_read->line) : NULL;
    char *updated = plain_update ? where(plain_update->file, (long long)plain_update->line) : NULL;
    char *also = at && updated ? hs_printf(", also read non-atomically (%s), also updated non-atomically (%s)", at, updated)
                 : at      ? hs_printf(", also read non-atomically (%s)", at)
                 : updated ? hs_printf(", also updated non-atomically (%s)", updated)
                           : hs_xstrdup("");
    free(updated);
    char *r = hs_printf("%zu add%s, %zu load%s, %zu reset%s in %zu file%s%s, seen by %zu of the %s's %zu TU%s", adds,
                        adds == 1 ? "" : "s", loads, loads == 1 ? "" : "s", resets, resets == 1 ? "" : "s",
                        hs_strmap_size(files), hs_strmap_size(files) == 1 ? "" : "s", also, tus,
                        ctx->tus_in_database ? "compile database" : "scan", all, all == 1 ? "" : "s");
    free(at);
    free(also);
    hs_strmap_delete(files);
    return r;
}

static const char *relaxed_spelling(const hs_atomic_op *u)
{
    if (u->form == HS_AFORM_GNU || u->form == HS_AFORM_SYNC)
        return "__ATOMIC_RELAXED";
    if (u->form == HS_AFORM_MEMBER || u->form == HS_AFORM_OPERATOR)
        return "std::memory_order_relaxed";
    return "memory_order_relaxed";
}

/* A load whose value decides a condition other than a gauge's against a limit (`if (!refs)`,
 * `refs <= 0`), atomic or plain: with a decrement, a reference count's test. */
static bool tested(const hs_atomic_op *u)
{
    if (u->op == HS_AOP_PLAIN)
        return u->plain->loads_condition.count > u->plain->loads_limit.count;
    return u->op == HS_AOP_LOAD && ((u->use == HS_AUSE_CONDITION && !u->limit_test) || u->use == HS_AUSE_LOOP_CONDITION);
}

/* ---- fix-its ---------------------------------------------------------------------- */

/* One edit replacing the operation as written. */
static json_t *replace_span(const hs_atomic_op *u, const char *replacement)
{
    json_t *edits = json_array();
    json_array_append_new(edits, hs_edit_new(or_empty(u->site.file), u->span.offset, u->span.length,
                                             replacement));
    return edits;
}

static bool is_add(const hs_atomic_op *u)
{
    return u->op == HS_AOP_FETCH_ADD || u->op == HS_AOP_ADD_FETCH;
}

/*
 * Whether no configuration can use the value of an operator whose value this one discards:
 * it is a statement of its own with no macro and no preprocessor directive around it
 * (whole_statement). An #if arm beside it may use it elsewhere (`#ifndef NDEBUG` /
 * `int id =` / `#endif` / `++next_id;`), as may a macro it is an argument of; when hotscan
 * cannot tell, the value is kept.
 */
static bool value_unused_everywhere(const hs_atomic_op *u)
{
    return u->use == HS_AUSE_DISCARDED && u->whole_statement;
}

/* A prefix or compound operator whose value is unused here, rewritten to keep the value for
 * another configuration (operator_as_call): its fix says so, and why compilers warn. */
static bool keeps_value_for_elsewhere(const hs_atomic_op *u)
{
    return (u->form == HS_AFORM_OPERATOR || u->form == HS_AFORM_C11_OPERATOR) &&
           (u->op == HS_AOP_ADD_FETCH || u->op == HS_AOP_SUB_FETCH) && u->use == HS_AUSE_DISCARDED &&
           !u->whole_statement;
}

/*
 * An add/sub written as an operator, as a relaxed fetch_add/fetch_sub call `call` that
 * returns the old value, of the atomic's value type. The operator's own value: postfix =
 * the old value, which the call is in any context; prefix and compound assignment = the new
 * value (old +/- n), which the bare call is only where no configuration uses it, and
 * `(call +/- n)` is wherever `old + n` has the atomic's value type and n may be evaluated twice.
 */
static char *operator_as_call(const hs_atomic_op *u, const char *call, const char *value,
                              const char **why_not)
{
    bool returns_old = u->op == HS_AOP_FETCH_ADD || u->op == HS_AOP_FETCH_SUB;
    if (u->has_operand && !u->operand_integer) {
        /* `x += 1.5` on an _Atomic int adds in double and converts; fetch_add converts first. */
        *why_not = "the operand is not an integer, and fetch_add would convert it before adding";
        return NULL;
    }
    if (returns_old || value_unused_everywhere(u))
        return hs_xstrdup(call);
    /* Unused here but not surely everywhere: the reason says so first. */
    bool maybe_used = u->use == HS_AUSE_DISCARDED;
#define ELSEWHERE "its value is unused in this configuration, but conditional compilation or code next " \
                  "to it may use it in another; "
#define NARROW "the operator's value is the new value of a type narrower than int, and the rewritten " \
               "sum would be an int (a wrapped counter would read differently)"
#define OTHER_TYPE "the operator's value is the new value, and the rewritten sum would not have the " \
                   "atomic's value type (the operand is wider, or of other signedness)"
#define TWICE "the operator's value is the new value, and rewriting it would evaluate the operand twice"
    if (u->value_narrow || !u->sum_keeps_type) {
        /* The sum would be promoted: 255 + 1 is 256 where `++x` on a uint8_t is 0; a long
         * operand makes `x += n` on an int a long. */
        *why_not = u->value_narrow ? (maybe_used ? ELSEWHERE NARROW : NARROW)
                                   : (maybe_used ? ELSEWHERE OTHER_TYPE : OTHER_TYPE);
        return NULL;
    }
    if (u->has_operand && (!u->operand_repeatable || !hs_text_is_simple(value))) {
        *why_not = maybe_used ? ELSEWHERE TWICE : TWICE;
        return NULL;
    }
#undef ELSEWHERE
#undef NARROW
#undef OTHER_TYPE
#undef TWICE
    return hs_printf("(%s %c %s)", call, is_add(u) ? '+' : '-', value);
}

static const char *method_for(const hs_atomic_op *u)
{
    return is_add(u) ? "fetch_add" : "fetch_sub";
}

/* The C11 generic function as written ("atomic_fetch_add(&x, 1)"), made explicit. */
static char *explicit_c11_call(const char *text, const char *relaxed)
{
    char *name;
    json_t *args;
    if (!hs_split_call_text(text, &name, &args))
        return NULL;
    char *r = NULL;
    size_t n = strlen(name);
    if (n > 9 && strcmp(name + n - 9, "_explicit") == 0) {
        if (json_array_size(args) > 0) {
            json_array_set_new(args, json_array_size(args) - 1, json_string(relaxed));
            r = hs_join_call_text(name, args);
        }
    } else {
        char *explicit_name = hs_printf("%s_explicit", name);
        json_array_append_new(args, json_string(relaxed));
        r = hs_join_call_text(explicit_name, args);
        free(explicit_name);
    }
    free(name);
    json_decref(args);
    return r;
}

/* __sync_fetch_and_add(p, v) -> __atomic_fetch_add(p, v, __ATOMIC_RELAXED), and kin. */
static char *sync_as_atomic(const char *text)
{
    static const char *const map[][2] = {
        {"__sync_fetch_and_add", "__atomic_fetch_add"}, {"__sync_fetch_and_sub", "__atomic_fetch_sub"},
        {"__sync_add_and_fetch", "__atomic_add_fetch"}, {"__sync_sub_and_fetch", "__atomic_sub_fetch"}};
    char *name;
    json_t *args;
    if (!hs_split_call_text(text, &name, &args))
        return NULL;
    char *r = NULL;
    for (size_t i = 0; i < sizeof map / sizeof map[0] && !r; i++) {
        if (strcmp(name, map[i][0]) == 0 && json_array_size(args) == 2) {
            json_array_append_new(args, json_string("__ATOMIC_RELAXED"));
            r = hs_join_call_text(map[i][1], args);
        }
    }
    free(name);
    json_decref(args);
    return r;
}

/* A GNU builtin as spelled ("__atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST)") made relaxed. */
static char *gnu_relaxed(const char *text)
{
    char *name;
    json_t *args;
    if (!hs_split_call_text(text, &name, &args))
        return NULL;
    char *r = NULL;
    size_t n = json_array_size(args);
    if (n > 0 && strstr(json_string_value(json_array_get(args, n - 1)), "SEQ_CST")) {
        json_array_set_new(args, n - 1, json_string("__ATOMIC_RELAXED"));
        r = hs_join_call_text(name, args);
    } else if (strncmp(name, "__sync_", 7) == 0) {
        r = sync_as_atomic(text);
    } else if (strncmp(name, "atomic_", 7) == 0) {
        r = explicit_c11_call(text, "memory_order_relaxed");
    }
    free(name);
    json_decref(args);
    return r;
}

/* Inserts the order as the last argument of the call `u` spells ("x.load()"). */
static json_t *append_order_argument(const hs_atomic_op *u, const char *relaxed)
{
    const char *text = or_empty(u->span.text);
    size_t n = strlen(text);
    if (n == 0 || text[n - 1] != ')')
        return NULL;
    /* The call's own parentheses: match the final ')' backwards. */
    int depth = 0;
    size_t open = 0;
    for (size_t i = n; i-- > 0;) {
        if (text[i] == ')')
            depth++;
        else if (text[i] == '(' && --depth == 0) {
            open = i;
            break;
        }
    }
    bool has_args = false;
    for (size_t i = open + 1; i + 1 < n; i++)
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n')
            has_args = true;
    char *insert = hs_printf("%s%s", has_args ? ", " : "", relaxed);
    json_t *edits = json_array();
    json_array_append_new(edits, hs_edit_new(or_empty(u->site.file), (size_t)u->span.offset + n - 1, 0, insert));
    free(insert);
    return edits;
}

/*
 * The relaxed form of one operation, in the dialect it is written in, or NULL with the
 * reason. `macro_ok`: the operation is written in a project macro whose every
 * expansion is a flagged counter operation, so its definition may be edited.
 */
static json_t *relaxed_edits(const hs_atomic_op *u, bool macro_ok, const char **why_not)
{
    hs_atomic_form form = u->form;
    *why_not = NULL;
    if (u->via) {
        *why_not = "the operation is in the body of the function called here, which other callers share; "
                   "relax it there, or add a relaxed variant";
        return NULL;
    }
    if (!u->has_span) {
        *why_not = "hotscan could not read the code as written";
        return NULL;
    }
    const char *span_text = or_empty(u->span.text);
    const char *macro = or_empty(u->macro_name);
    bool c11_generic = strncmp(macro, "atomic_", 7) == 0 && form == HS_AFORM_C11;
    if (macro[0] && !c11_generic) {
        if (!u->has_spelled) {
            *why_not = "it is written through a macro whose definition hotscan cannot edit";
            return NULL;
        }
        if (!macro_ok) {
            *why_not = "it is written through a macro that is also used on variables that are not "
                       "counters, or whose operations must keep their order; change the macro by hand";
            return NULL;
        }
        char *text = gnu_relaxed(or_empty(u->spelled.text));
        if (!text) {
            *why_not = "hotscan cannot rewrite the operation in the macro's definition";
            return NULL;
        }
        json_t *edits = json_array();
        json_array_append_new(edits, hs_edit_new(or_empty(u->spelled.file), u->spelled.offset,
                                                 u->spelled.length, text));
        free(text);
        return edits;
    }
    const char *file = or_empty(u->site.file);
    const char *object = or_empty(u->object_text);
    const char *value = u->value_text ? u->value_text : "1";
    /* The operator forms copy the operand into a call; when its text was not recorded (not
     * UTF-8), "1" in its place would change what the program adds. */
    bool operand_unknown = u->has_operand && !u->value_text;
    char *call = NULL, *replacement = NULL;
    json_t *edits = NULL;
    if (form == HS_AFORM_MEMBER) {
        if (u->has_order_arg) {
            edits = json_array();
            json_array_append_new(edits, hs_edit_new(file, u->order_offset, u->order_length,
                                                     "std::memory_order_relaxed"));
        } else {
            edits = append_order_argument(u, "std::memory_order_relaxed");
        }
    } else if (form == HS_AFORM_OPERATOR || form == HS_AFORM_C11_OPERATOR) {
        bool cxx = form == HS_AFORM_OPERATOR;
        char *obj = hs_text_operand(object);
        if (operand_unknown && u->op != HS_AOP_LOAD) {
            *why_not = "the operand's source text is not valid UTF-8, so hotscan cannot carry it into a rewrite";
        } else if (u->op == HS_AOP_LOAD) {
            replacement = cxx ? hs_printf("%s.load(std::memory_order_relaxed)", obj)
                              : hs_printf("atomic_load_explicit(&%s, memory_order_relaxed)", obj);
        } else if (u->op == HS_AOP_STORE) {
            if (u->use != HS_AUSE_DISCARDED)
                *why_not = "the assignment's value is used; rewrite it by hand";
            else if (!value_unused_everywhere(u))
                *why_not = "the assignment's value is unused in this configuration, but conditional compilation "
                           "or code next to it may use it in another; rewrite it by hand";
            else
                replacement = cxx ? hs_printf("%s.store(%s, std::memory_order_relaxed)", obj, value)
                                  : hs_printf("atomic_store_explicit(&%s, %s, memory_order_relaxed)", obj, value);
        } else {
            call = cxx ? hs_printf("%s.%s(%s, std::memory_order_relaxed)", obj, method_for(u), value)
                       : hs_printf("atomic_%s_explicit(&%s, %s, memory_order_relaxed)", method_for(u), obj, value);
            replacement = operator_as_call(u, call, value, why_not);
        }
        free(obj);
    } else if (form == HS_AFORM_C11) {
        bool cxx = strncmp(span_text, "std::", 5) == 0;
        replacement = explicit_c11_call(span_text, cxx ? "std::memory_order_relaxed" : "memory_order_relaxed");
    } else if (form == HS_AFORM_GNU) {
        if (u->has_order_arg) {
            edits = json_array();
            json_array_append_new(edits, hs_edit_new(file, u->order_offset, u->order_length, "__ATOMIC_RELAXED"));
        } else {
            replacement = gnu_relaxed(span_text);
        }
    } else if (form == HS_AFORM_SYNC) {
        replacement = sync_as_atomic(span_text);
    } else if (form == HS_AFORM_WRAPPER) {
        *why_not = "no relaxed form of this wrapper is known; see docs/rule-data.md";
    }
    if (replacement && hs_text_has_directive(span_text, strlen(span_text))) {
        /* `x +=` / `#ifdef BIG` / `4 +` / `#endif` / `2`: the rewrite is built from this
         * configuration's parts and would drop the other arms. */
        *why_not = "a preprocessor directive sits inside the operation, and the rewrite would drop the code "
                   "other configurations compile";
    } else if (replacement) {
        edits = replace_span(u, replacement);
    }
    if (!edits && !*why_not)
        *why_not = "hotscan cannot rewrite this form of the operation";
    free(call);
    free(replacement);
    return edits;
}

/* HOTSCAN_DEBUG_ATOMICS=NAME (a variable's spelled name, or "*"): why it is or is not a
 * counter, on standard error. For reading a verdict on a real tree. */
static void trace_verdict(const variable *v, const char *why)
{
    const char *want = getenv("HOTSCAN_DEBUG_ATOMICS");
    if (!want || v->uses.len == 0)
        return;
    const hs_atomic_op *u0 = v->uses.items[0];
    const char *name = or_empty(u0->var_name);
    if (strcmp(want, "*") != 0 && strcmp(want, name) != 0)
        return;
    fprintf(stderr, "hotscan: atomics: '%s' (%s, %zu uses, %zu judged): %s\n", name, or_empty(u0->var),
            v->uses.len, v->judged.len, why);
}

static bool variable_is_counter_why(const variable *v, char **why_out);

/* `PFS_atomic::add_32(&m_refcount, -1)`, `x.fetch_add(-1)`: a decrement written as an add
 * (its operand, or for a wrapper call any argument after the object, is negated). */
static bool adds_a_negative(const hs_atomic_op *u)
{
    if (!is_add(u))
        return false;
    if (u->value_text)
        return u->value_text[0] == '-';
    char *name;
    json_t *args;
    if (u->form != HS_AFORM_WRAPPER || !u->text || !hs_split_call_text(u->text, &name, &args))
        return false;
    bool r = false;
    for (size_t i = 1; i < json_array_size(args) && !r; i++) {
        const char *a = json_string_value(json_array_get(args, i));
        while (a && (*a == ' ' || *a == '\t'))
            a++;
        r = a && a[0] == '-';
    }
    free(name);
    json_decref(args);
    return r;
}

static bool variable_is_counter(const variable *v)
{
    char *why = NULL;
    bool r = variable_is_counter_why(v, &why);
    trace_verdict(v, why ? why : r ? "a counter" : "not a counter");
    free(why);
    return r;
}

static bool variable_is_counter_why(const variable *v, char **why_out)
{
    bool has_add = false, has_sub = false, is_tested = false;
    if (v->uses.len > 0 && is_parameter(((const hs_atomic_op *)v->uses.items[0])->var))
        return false; /* a wrapper's parameter: judged as what each call passes */
    bool any_add = false, all_hand_out = true;
    const hs_atomic_op *setter = NULL, *decides = NULL;
    for (size_t i = 0; i < v->judged.len; i++) {
        const hs_atomic_op *u = v->judged.items[i];
        if (is_setter(u) && !setter)
            setter = u;
        if (decides_on_value(u) && !decides)
            decides = u;
        if (!is_add_or_sub(u))
            continue;
        any_add = true;
        all_hand_out &= (u->op == HS_AOP_FETCH_ADD || u->op == HS_AOP_ADD_FETCH) &&
                        (u->use == HS_AUSE_VALUE || u->use == HS_AUSE_RETURNED);
    }
    /* A setter may publish a total that a reader's scan is bounded by: no reservation then. */
    bool reservations = any_add && all_hand_out && !setter;
    /* A setter's value that something tests (`if (flushed_lsn.load() >= lsn)`) is a published
     * value, not a statistic's new total. */
    if (setter && decides) {
        const hs_atomic_op *at = decides->op == HS_AOP_PLAIN ? setter : decides;
        char *place = where(at->site.file, (long long)at->site.line);
        *why_out = hs_printf("it is set from a function's parameter and its value is tested, as a published "
                             "value is (%s)", place);
        free(place);
        return false;
    }
    for (size_t i = 0; i < v->judged.len; i++) {
        const hs_atomic_op *u = v->judged.items[i];
        has_add |= is_add_or_sub(u);
        /* `PFS_atomic::add_32(&m_refcount, -1)`: a decrement written as an add; `refs--;`
         * written plainly (atomic-mixed-access reports the race) is one too. */
        has_sub |= is_sub(u) || adds_a_negative(u) || (u->op == HS_AOP_PLAIN && u->plain->decrements.count);
        is_tested |= tested(u);
        char *why = disqualifies(u, reservations);
        if (why) {
            *why_out = why;
            return false;
        }
    }
    /* Decremented and tested: a reference count (`dec(&refs); if (!refs) free(obj)`). A
     * gauge held to a limit (`used--`, `if (used < max)`) frees and publishes nothing. */
    if (!has_add || (has_sub && is_tested)) {
        *why_out = hs_xstrdup(!has_add ? "nothing adds to it" : "it is decremented and tested, as a reference count is");
        return false;
    }
    /* Set to two different constants (1, then 0): a flag, not a counter's reset. */
    const hs_atomic_op *first_value = NULL;
    for (size_t i = 0; i < v->judged.len; i++) {
        const hs_atomic_op *u = v->judged.items[i];
        if (!u->has_value)
            continue;
        if (first_value && first_value->value != u->value) {
            *why_out = hs_xstrdup("it is set to two different constants, as a flag is");
            return false;
        }
        first_value = u;
    }
    return true;
}

/*
 * In a partial scan (PATHs left TUs of the compile database out), may the variable have uses
 * the scan did not see? A name with external linkage may (its USR starts "c:@": a global, a
 * class or namespace member), unless it is a field of a struct a source file declares, and
 * so may anything declared in a header, which TUs left out include. Then "only ever used as a counter" covers the scanned TUs only: on rocksdb, every
 * wrong verdict of a folder scan was of this kind (a refcount decremented in a .cc outside).
 */
static bool may_have_unseen_uses(const hs_judge_ctx *ctx, const hs_atomic_op *u)
{
    if (ctx->tus_left_out == 0)
        return false;
    const char *usr = or_empty(u->var);
    /* A field of a struct a source file declares (`struct fpm_nl_ctx` in dplane_fpm_nl.c):
     * no other TU can name it, however the object is reached. */
    if (strncmp(usr, "c:@S@", 5) == 0 && strstr(usr, "@FI@") && u->var_decl.file &&
        hs_is_source_file(u->var_decl.file))
        return false;
    if (!usr[0] || strncmp(usr, "c:@", 3) == 0)
        return true;
    return !u->var_decl.file || !hs_is_source_file(u->var_decl.file);
}

/* The variable's first mention in compiled-out code (HS_AOP_INACTIVE), among what its
 * verdict reads (its own facts and those of the objects that may be the same), or NULL. */
static const hs_atomic_op *compiled_out_mention(const variable *v)
{
    for (size_t i = 0; i < v->judged.len; i++) {
        const hs_atomic_op *u = v->judged.items[i];
        if (u->op == HS_AOP_INACTIVE)
            return u;
    }
    return NULL;
}

/*
 * The first plain update of the variable (`stat_numcommands++;` beside
 * `atomicIncr(stat_numcommands, 1)` elsewhere) that is not the single-threaded fallback in
 * the other arm of a branch that updates it atomically, or NULL. Such an update races with
 * the atomic ones (atomic-mixed-access reports it); whether the program relies on them for
 * anything while it does, hotscan cannot tell, so no fix-it relaxes them meanwhile.
 */
static const hs_plain_update *racing_plain_update(const variable *v)
{
    for (size_t i = 0; i < v->judged.len; i++) {
        const hs_atomic_op *u = v->judged.items[i];
        if (u->op != HS_AOP_PLAIN)
            continue;
        for (size_t k = 0; k < u->plain->update_sites_len; k++)
            if (!u->plain->update_sites[k].beside)
                return &u->plain->update_sites[k];
    }
    return NULL;
}

/* Whether the variable is a pointer to the atomic (hs_atomic_op.through_pointer): its
 * operations are on objects it may point to, which the rule does not follow. */
static bool through_pointer(const variable *v)
{
    for (size_t i = 0; i < v->uses.len; i++)
        if (((const hs_atomic_op *)v->uses.items[i])->through_pointer)
            return true;
    return false;
}

static void judge_variable(hs_judge_ctx *ctx, const hs_atomic_store *atomics, const char *var, const variable *v,
                           hs_strmap *macros_ok)
{
    if (!variable_is_counter(v))
        return;
    bool unseen = v->uses.len > 0 && may_have_unseen_uses(ctx, v->uses.items[0]);
    /* `*c += 1` with `std::atomic<int> *c`: c may point to an object that is waited on or
     * freed on its value elsewhere (`Counter f(&obj->refs)`), and the uses seen are only
     * those made through c. The finding stays, low, and no fix-it rests on it. */
    bool pointer = !unseen && through_pointer(v);
    /* Code another configuration compiles may use it otherwise (`#ifndef NDEBUG` waits on
     * it): the verdict holds for this configuration only, and no fix-it rests on it. */
    const hs_atomic_op *inactive = compiled_out_mention(v);
    char *inactive_at = inactive ? where(inactive->site.file, (long long)inactive->site.line) : NULL;
    char *partial = unseen ? hs_printf(" (low confidence: the PATHs left out %zu of the compile database's "
                                       "%zu TUs, and uses there are not seen; scan without PATHs for a "
                                       "verdict)",
                                       ctx->tus_left_out, ctx->tus_in_database)
                    : pointer ? hs_xstrdup(" (low confidence: these are operations through a pointer, on whatever "
                                           "it points to; hotscan does not follow where it points, and an object "
                                           "it reaches may be used otherwise)")
                    : inactive ? hs_printf(" (in this configuration: it also appears in code the "
                                           "configuration compiles out, %s, which hotscan cannot see)",
                                           inactive_at)
                               : hs_xstrdup("");
    char *inactive_why = inactive ? hs_printf("the variable also appears in code this configuration compiles "
                                              "out (%s), whose uses hotscan cannot see; a relaxed order could "
                                              "break a build that compiles it",
                                              inactive_at)
                                  : NULL;
    const hs_plain_update *racing = racing_plain_update(v);
    char *racing_at = racing ? where(racing->site.file, (long long)racing->site.line) : NULL;
    char *racing_why = racing ? hs_printf("other code updates the variable non-atomically (%s): a race if another "
                                          "thread can reach that object (atomic-mixed-access); until that update "
                                          "is atomic, hotscan does not relax the operations it may race with",
                                          racing_at)
                              : NULL;
    char *summary = usage_summary(ctx, atomics, var, v);
    for (size_t i = 0; i < v->uses.len; i++) {
        const hs_atomic_op *u = v->uses.items[i];
        if (u->order != HS_AORDER_SEQ_CST || u->form == HS_AFORM_ACCESSOR)
            continue;
        /* A wrapper call is reported once, for its first seq_cst operation. */
        bool reported = false;
        for (size_t j = 0; u->via && j < i && !reported; j++) {
            const hs_atomic_op *e = v->uses.items[j];
            reported = e->via == u->via && e->order == HS_AORDER_SEQ_CST;
        }
        if (reported)
            continue;
        const char *text = or_empty(u->text);
        char *message = hs_printf("'%s' is only ever used as a counter (%s); this sequentially "
                                  "consistent %s '%.48s%s' orders memory for nothing: use %s%s",
                                  or_empty(u->var_name), summary, or_empty(u->op_name), text,
                                  strlen(text) > 48 ? "..." : "", relaxed_spelling(u), partial);
        /* The fence matters where the operation runs often: adds and subs do; loads cost
         * little on x86; a reset runs rarely (often once, at start-up). */
        const char *confidence = unseen || pointer ? "low" : is_add_or_sub(u) ? (inactive ? "medium" : "high")
                                 : u->op == HS_AOP_LOAD ? "medium" : "low";
        json_t *finding = hs_finding_at("atomic-seqcst-counter", "warning", confidence, &u->site,
                                        u->function_name, message);
        if (u->var_decl.file)
            hs_finding_add_related(finding, u->var_decl.file, u->var_decl.line, u->var_decl.column,
                                   "the counter is declared here");
        const char *why_not = NULL;
        bool macro_ok = u->macro_name && u->macro_name[0] && hs_strmap_get(macros_ok, u->macro_name) != NULL;
        /* A fix must hold for the whole program: never from a partial verdict. */
        json_t *edits = unseen || pointer || inactive || racing || u->alias_pair ? NULL
                                                                                : relaxed_edits(u, macro_ok, &why_not);
        if (unseen)
            why_not = "the scan left out TUs of the compile database that may use the variable";
        else if (pointer)
            why_not = "the operation is on whatever the pointer points to, which hotscan does not follow; an "
                      "object it may point to could be waited on or freed on its value";
        else if (inactive)
            why_not = inactive_why;
        else if (racing)
            why_not = racing_why;
        else if (u->alias_pair)
            why_not = "the operation is made through a local pointer to one of two variables (`p = c ? &x : &y`), "
                      "and relaxing it relaxes both; relax it by hand once each is known to be a counter";
        if (edits) {
            char *desc = hs_printf("use %s%s", relaxed_spelling(u),
                                   keeps_value_for_elsewhere(u)
                                       ? " (keeping the new value: unused in this configuration, but conditional "
                                         "compilation next to it may use it in another; compilers warn "
                                         "-Wunused-value here)"
                                       : "");
            hs_finding_add_fix(finding, desc, edits);
            free(desc);
        } else {
            json_object_set_new(finding, "fix_unavailable", json_string(why_not));
        }
        json_object_set_new(finding, "tu_index", json_integer((json_int_t)u->tu_index));
        if (u->var_name)
            json_object_set_new(finding, "variable", json_string(u->var_name));
        if (u->op_name)
            json_object_set_new(finding, "operation", json_string(u->op_name));
        if (u->text)
            json_object_set_new(finding, "fingerprint_basis", json_string(u->text));
        hs_judge_add_finding(ctx, finding);
        free(message);
    }
    free(summary);
    free(partial);
    free(inactive_at);
    free(inactive_why);
    free(racing_at);
    free(racing_why);
}

/* Fills `ok` with the macros every expansion of which is a seq_cst counter operation. */
static void find_editable_macros(const hs_atomic_store *atomics, hs_strmap *vars, hs_strmap *ok)
{
    hs_strmap *bad = hs_strmap_create();
    for (size_t i = 0; i < atomics->len; i++) {
        const hs_atomic_op *u = &atomics->ops[i];
        const char *macro = or_empty(u->macro_name);
        if (!macro[0])
            continue;
        variable *v = hs_strmap_get(vars, u->var);
        /* A counter whose operations keep their order (a plain update races with them) must
         * not be relaxed through a definition another counter's fix edits. */
        if (!v || !variable_is_counter(v) || u->order != HS_AORDER_SEQ_CST || racing_plain_update(v))
            hs_strmap_put(bad, macro, (void *)1);
        else if (!hs_strmap_has(bad, macro))
            hs_strmap_put(ok, macro, (void *)1);
    }
    const char *name;
    for (size_t it = 0; hs_strmap_next(bad, &it, &name, NULL);)
        hs_strmap_put(ok, name, NULL);
    hs_strmap_delete(bad);
}

static void judge(hs_judge_ctx *ctx)
{
    const hs_atomic_store *atomics = hs_atomic_facts(ctx->program);
    hs_atomic_vars *vars = hs_atomic_vars_create(atomics);
    hs_strmap *macros_ok = hs_strmap_create();
    find_editable_macros(atomics, vars->by_usr, macros_ok);
    for (size_t k = 0; k < vars->order.len; k++)
        judge_variable(ctx, atomics, vars->order.items[k], hs_strmap_get(vars->by_usr, vars->order.items[k]), macros_ok);
    hs_atomic_vars_delete(vars);
    hs_strmap_delete(macros_ok);
}

static const hs_fact_family *const reads[] = {&hs_family_atomics, NULL};

static const char *const data_sections[] = {"atomic_wrappers", "relaxed_types", NULL};

const hs_rule hs_rule_atomic_seqcst_counter = {
    .id = "atomic-seqcst-counter",
    .summary = "A sequentially consistent operation on an atomic the program uses only as a counter.",
    .description = "A statistics counter synchronizes nothing: no other memory is published or "
                   "consumed through it, so the full fence of a sequentially consistent operation "
                   "(a dmb on ARM, a locked instruction or mfence for stores on x86) buys nothing. "
                   "MySQL's performance schema gained 7-12% on ARM and 1-3% on x86 with relaxed "
                   "counters (bug 100432). hotscan checks every use of the variable across the "
                   "program before calling it a counter.",
    .doc = "docs/rules/atomic-seqcst-counter.md",
    .default_severity = "warning",
    .precision = "high", /* docs/rules/atomic-seqcst-counter.md, "Precision" */
    .data_sections = data_sections,
    .judge = judge,
    .reads = reads,
};

/*
 * emit_sarif.c - the report as SARIF 2.1.0, the format GitHub code scanning and SARIF
 * viewers read.
 *
 * One run. The driver lists every rule in the table (not only those that fired), so a
 * result's ruleIndex is its rule's place in the table and a viewer can show help for any
 * rule. Paths stay relative: each artifactLocation is a relative URI against the
 * SRCROOT base, which originalUriBaseIds binds to the report's root as a file: URI.
 *
 * The mapping, field by field, is in docs/formats/sarif.md. Two choices worth knowing:
 * - Columns are copied as they are (1-based bytes, end exclusive). SARIF counts UTF-16
 *   code units by default; the two agree on lines that are ASCII up to the column.
 * - Fix edits carry byte offsets, so a replacement's deletedRegion uses byteOffset and
 *   byteLength, which mean exactly that, rather than charOffset, which would not.
 *
 * The writer reads nothing but the report, so the same report always gives the same SARIF.
 */
#include "hotscan/emit.h"
#include "hotscan/common.h"
#include "hotscan/rules.h"

#include <stdlib.h>
#include <string.h>

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define BASE_ID "SRCROOT"
#define FINGERPRINT_KEY "hotscan/v1"

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static json_int_t num(json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/*
 * A JSON string that is always valid UTF-8: the report's strings already are (jansson
 * checks them), but a byte slipped in by other means becomes U+FFFD rather than a
 * NULL that would silently drop the key.
 */
static json_t *jstr(const char *s)
{
    json_t *v = json_string(s);
    if (v)
        return v;
    hs_buf b;
    hs_buf_init(&b);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x80)
            hs_buf_append(&b, (const char *)p, 1);
        else
            hs_buf_puts(&b, "\xEF\xBF\xBD");
    }
    v = json_string(b.data ? b.data : "");
    hs_buf_free(&b);
    return v;
}

static json_t *message(const char *text)
{
    return json_pack("{s:o}", "text", jstr(text));
}

/* A message as SARIF likes it: one that ends with a full stop. */
static json_t *sentence(const char *text)
{
    size_t n = strlen(text);
    if (n == 0 || strchr(".!?", text[n - 1]))
        return message(text);
    char *s = hs_printf("%s.", text);
    json_t *m = message(s);
    free(s);
    return m;
}

/* RFC 3986: every byte but unreserved characters and '/' percent-encoded. */
static void uri_encode(hs_buf *b, const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        unsigned char c = *p;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
            c == '.' || c == '_' || c == '~' || c == '/') {
            hs_buf_append(b, (const char *)p, 1);
        } else {
            char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
            hs_buf_append(b, esc, 3);
        }
    }
}

/* file:///abs/dir/ - absolute, with the trailing slash a base URI needs (the root, the
 * working directory). */
static json_t *root_uri(const char *root)
{
    hs_buf b;
    hs_buf_init(&b);
    hs_buf_puts(&b, "file://");
    if (root[0] != '/')
        hs_buf_puts(&b, "/");
    uri_encode(&b, root);
    if (b.data[b.len - 1] != '/')
        hs_buf_puts(&b, "/");
    json_t *v = json_string(b.data);
    hs_buf_free(&b);
    return v;
}

/*
 * A report path relative to the root becomes a relative URI against SRCROOT; an
 * absolute one (outside the root, which the scan never produces) a file: URI of its own.
 */
static json_t *artifact_location(const char *path)
{
    hs_buf b;
    hs_buf_init(&b);
    bool absolute = path[0] == '/';
    if (absolute)
        hs_buf_puts(&b, "file://");
    uri_encode(&b, path);
    json_t *loc = json_pack("{s:s}", "uri", b.data ? b.data : "");
    if (!absolute)
        json_object_set_new(loc, "uriBaseId", json_string(BASE_ID));
    hs_buf_free(&b);
    return loc;
}

/* A region from whatever position fields are there and positive (SARIF's minimum is 1). */
static json_t *region(json_int_t line, json_int_t column, json_int_t end_line, json_int_t end_column)
{
    json_t *r = json_object();
    if (line < 1)
        line = 1;
    json_object_set_new(r, "startLine", json_integer(line));
    if (column >= 1)
        json_object_set_new(r, "startColumn", json_integer(column));
    if (end_line >= line) {
        json_object_set_new(r, "endLine", json_integer(end_line));
        if (end_column >= 1 && (end_line > line || column < 1 || end_column >= column))
            json_object_set_new(r, "endColumn", json_integer(end_column));
    }
    return r;
}

static json_t *physical_location(const char *file, json_t *region_obj)
{
    json_t *p = json_pack("{s:o}", "artifactLocation", artifact_location(file));
    if (region_obj)
        json_object_set_new(p, "region", region_obj);
    return p;
}

/* GitHub's problem.severity has "recommendation" where SARIF has "note". */
static const char *problem_severity(const char *level)
{
    return strcmp(level, "note") == 0 ? "recommendation" : level;
}

static const char *result_level(const char *severity)
{
    if (strcmp(severity, "error") == 0 || strcmp(severity, "warning") == 0 || strcmp(severity, "note") == 0)
        return severity;
    return "warning";
}

/* A doc page's URI under the report's tool.docs_url ("docs/rules/x.md" -> BASE/rules/x.md). */
static char *doc_uri(const char *docs_url, const char *doc)
{
    if (!docs_url || !*docs_url)
        return NULL;
    if (strncmp(doc, "docs/", 5) == 0)
        doc += 5;
    size_t n = strlen(docs_url);
    return hs_printf("%.*s/%s", (int)(n && docs_url[n - 1] == '/' ? n - 1 : n), docs_url, doc);
}

/* A link target the page means inside the docs: a relative .md page, or an anchor. */
static bool docs_link_target(const char *t, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("-_./#", t[i]) && !(t[i] >= '0' && t[i] <= '9') && !(t[i] >= 'a' && t[i] <= 'z') &&
            !(t[i] >= 'A' && t[i] <= 'Z'))
            return false;
    if (t[0] == '#')
        return true;
    if (t[0] == '/')
        return false;
    const char *hash = memchr(t, '#', n);
    size_t path = hash ? (size_t)(hash - t) : n;
    return path > 3 && memcmp(t + path - 3, ".md", 3) == 0;
}

/* The target of a link in docs/rules/PAGE, as a path under docs/ ("../x.md" -> "x.md"). */
static char *docs_relative(const char *page, const char *t, size_t n)
{
    if (t[0] == '#')
        return hs_printf("rules/%s%.*s", page, (int)n, t);
    const char *dir = "rules/";
    while (n >= 3 && strncmp(t, "../", 3) == 0 && *dir) {
        dir = "";
        t += 3;
        n -= 3;
    }
    return hs_printf("%s%.*s", dir, (int)n, t);
}

/*
 * A rule's doc page as SARIF's help.markdown, which GitHub shows with each alert: the page as
 * written, but its links into the docs (relative .md pages, anchors) made absolute under
 * docs_url, or reduced to their text when there is none (a relative link leads nowhere in a
 * viewer). Fenced code is copied as it is.
 */
static char *help_markdown(const char *page_name, const char *text, const char *docs_url)
{
    hs_buf b;
    hs_buf_init(&b);
    /* A link's text may run over a line end ("[rule\ndata](...)"); its target may not. */
    bool fenced = false, line_start = true;
    const char *p = text;
    while (*p) {
        if (line_start && strncmp(p, "```", 3) == 0)
            fenced = !fenced;
        line_start = false;
        const char *close = NULL, *end = NULL;
        if (!fenced && *p == '[' && (close = strpbrk(p + 1, "[]")) && *close == ']' && close[1] == '(')
            end = strpbrk(close + 2, ")\n ");
        if (end && *end == ')' && docs_link_target(close + 2, (size_t)(end - close - 2))) {
            bool linked = docs_url && *docs_url;
            if (linked)
                hs_buf_puts(&b, "[");
            hs_buf_append(&b, p + 1, (size_t)(close - p - 1));
            if (linked) {
                char *rel = docs_relative(page_name, close + 2, (size_t)(end - close - 2));
                char *uri = doc_uri(docs_url, rel);
                hs_buf_printf(&b, "](%s)", uri);
                free(uri);
                free(rel);
            }
            p = end + 1;
            continue;
        }
        if (*p == '\n')
            line_start = true;
        hs_buf_append(&b, p, 1);
        p++;
    }
    return hs_buf_take(&b);
}

/*
 * A rule's descriptor. help.markdown is the rule's doc page as built into the binary (what
 * GitHub shows beside an alert); help.text a short plain version. helpUri only when the
 * report has a tool.docs_url (--docs-url): a file: path on the scanning machine is no link a
 * viewer elsewhere can open.
 */
static json_t *rule_descriptor(const hs_rule *rule, const char *docs_url)
{
    const char *level = rule->default_severity ? rule->default_severity : "warning";
    char *name = hs_rule_pascal_name(rule->id);
    char *uri = doc_uri(docs_url, rule->doc);
    const char *slash = strrchr(rule->doc, '/');
    const char *page = hs_rule_doc_page(rule);
    char *help_text = uri ? hs_printf("%s %s See %s.", rule->summary, rule->description, uri)
                          : hs_printf("%s %s See %s in hotscan's documentation.", rule->summary, rule->description,
                                      rule->doc);
    char *help_md = page ? help_markdown(slash ? slash + 1 : rule->doc, page, docs_url)
                         : hs_printf("**%s**\n\n%s", rule->summary, rule->description);
    json_t *d = json_object();
    json_object_set_new(d, "id", jstr(rule->id));
    json_object_set_new(d, "name", jstr(name));
    json_object_set_new(d, "shortDescription", message(rule->summary));
    json_object_set_new(d, "fullDescription", message(rule->description));
    json_object_set_new(d, "help", json_pack("{s:o, s:o}", "text", jstr(help_text), "markdown", jstr(help_md)));
    if (uri)
        json_object_set_new(d, "helpUri", jstr(uri));
    json_object_set_new(d, "defaultConfiguration", json_pack("{s:s}", "level", level));
    json_object_set_new(d, "properties",
                        json_pack("{s:[s], s:s, s:s, s:s}", "tags", "performance", "precision",
                                  rule->precision ? rule->precision : "medium", "problem.severity",
                                  problem_severity(level), "documentation", rule->doc));
    free(name);
    free(uri);
    free(help_text);
    free(help_md);
    return d;
}

/* A rule the table does not know (a report from another build): a minimal descriptor. */
static json_t *unknown_rule_descriptor(const char *id)
{
    char *name = hs_rule_pascal_name(id);
    char *text = hs_printf("Findings of rule %s, which this build of hotscan does not describe.", id);
    json_t *d = json_pack("{s:o, s:o, s:o, s:o, s:{s:o, s:o}, s:{s:s}, s:{s:[s]}}", "id", jstr(id), "name",
                          jstr(name), "shortDescription", message(text), "fullDescription", message(text),
                          "help", "text", jstr(text), "markdown", jstr(text), "defaultConfiguration", "level",
                          "warning", "properties", "tags", "performance");
    free(name);
    free(text);
    return d;
}

/* The index of `id` in driver.rules, adding a descriptor for a rule the table lacks. */
static size_t rule_index(json_t *rules, const char *id)
{
    size_t i;
    json_t *d;
    json_array_foreach(rules, i, d)
        if (strcmp(str(d, "id"), id) == 0)
            return i;
    json_array_append_new(rules, unknown_rule_descriptor(id));
    return json_array_size(rules) - 1;
}

static json_t *related_locations(json_t *related)
{
    json_t *out = json_array();
    size_t i;
    json_t *rel;
    json_array_foreach(related, i, rel) {
        json_t *loc = json_object();
        json_object_set_new(loc, "id", json_integer((json_int_t)i));
        json_object_set_new(loc, "physicalLocation",
                            physical_location(str(rel, "file"), region(num(rel, "line"), num(rel, "column"), 0, 0)));
        json_object_set_new(loc, "message", sentence(str(rel, "message")));
        json_array_append_new(out, loc);
    }
    return out;
}

/* The hot path, root first, as one thread flow: each step at the line of its call. */
static json_t *code_flows(json_t *hot_path)
{
    hs_buf chain;
    hs_buf_init(&chain);
    json_t *locations = json_array();
    size_t i;
    json_t *step;
    json_array_foreach(hot_path, i, step) {
        hs_buf_printf(&chain, "%s%s", i ? " -> " : "", str(step, "function"));
        json_t *loc = json_object();
        json_object_set_new(loc, "physicalLocation",
                            physical_location(str(step, "file"), region(num(step, "line"), 0, 0, 0)));
        json_object_set_new(loc, "message", message(str(step, "function")));
        json_array_append_new(locations, json_pack("{s:o}", "location", loc));
    }
    char *text = hs_printf("hot path: %s", chain.data ? chain.data : "");
    json_t *flow = json_pack("{s:o, s:[{s:o}]}", "message", message(text), "threadFlows", "locations", locations);
    free(text);
    hs_buf_free(&chain);
    return json_pack("[o]", flow);
}

static json_int_t replacement_offset(json_t *replacement)
{
    return num(json_object_get(replacement, "deletedRegion"), "byteOffset");
}

/*
 * Offsets refer to the file as scanned. Listed from the end of the file backwards, the
 * replacements give the same result whether a consumer applies them to the original
 * file or one after another. Insertion sort: stable, and a fix has a handful of edits.
 */
static void sort_replacements(json_t *replacements)
{
    size_t n = json_array_size(replacements);
    for (size_t i = 1; i < n; i++) {
        json_t *r = json_incref(json_array_get(replacements, i));
        size_t j = i;
        while (j > 0 && replacement_offset(json_array_get(replacements, j - 1)) < replacement_offset(r)) {
            json_array_set(replacements, j, json_array_get(replacements, j - 1));
            j--;
        }
        json_array_set_new(replacements, j, r);
    }
}

/* Verified fixes only; each fix's edits grouped by file, in the order files first appear. */
static json_t *fixes(json_t *finding_fixes)
{
    json_t *out = json_array();
    size_t i;
    json_t *fix;
    json_array_foreach(finding_fixes, i, fix) {
        if (!json_is_true(json_object_get(fix, "verified")))
            continue;
        json_t *changes = json_array();
        size_t k;
        json_t *edit;
        json_array_foreach(json_object_get(fix, "edits"), k, edit) {
            const char *file = str(edit, "file");
            json_t *change = NULL;
            size_t c;
            json_t *existing;
            json_array_foreach(changes, c, existing) {
                if (strcmp(json_string_value(json_object_get(existing, "file")), file) == 0) {
                    change = existing;
                    break;
                }
            }
            if (!change) {
                /* "file" is a grouping key only; it is removed below. */
                change = json_pack("{s:s, s:o, s:[]}", "file", file, "artifactLocation", artifact_location(file),
                                   "replacements");
                json_array_append_new(changes, change);
            }
            json_int_t offset = num(edit, "offset"), length = num(edit, "length");
            const char *text = str(edit, "replacement");
            json_t *repl = json_pack("{s:{s:I, s:I}}", "deletedRegion", "byteOffset", offset < 0 ? 0 : offset,
                                     "byteLength", length < 0 ? 0 : length);
            if (*text)
                json_object_set_new(repl, "insertedContent", json_pack("{s:o}", "text", jstr(text)));
            json_array_append_new(json_object_get(change, "replacements"), repl);
        }
        json_t *change;
        json_array_foreach(changes, k, change) {
            json_object_del(change, "file");
            sort_replacements(json_object_get(change, "replacements"));
        }
        if (json_array_size(changes) == 0) {
            json_decref(changes);
            continue;
        }
        json_array_append_new(out, json_pack("{s:o, s:o}", "description", sentence(str(fix, "description")),
                                             "artifactChanges", changes));
    }
    return out;
}

/* The schema v1 keys a result maps to SARIF properties of its own; the rest go to properties. */
static bool is_core_key(const char *key)
{
    static const char *const core[] = {"rule", "severity", "confidence", "file", "line", "column", "end_line",
                                       "end_column", "function", "message", "hot_path", "related", "fixes",
                                       "fingerprint"};
    for (size_t i = 0; i < sizeof core / sizeof core[0]; i++)
        if (strcmp(key, core[i]) == 0)
            return true;
    return false;
}

static json_t *result(json_t *finding, json_t *rules)
{
    const char *rule = str(finding, "rule");
    json_t *r = json_object();
    json_object_set_new(r, "ruleId", jstr(rule));
    json_object_set_new(r, "ruleIndex", json_integer((json_int_t)rule_index(rules, rule)));
    json_object_set_new(r, "level", json_string(result_level(str(finding, "severity"))));
    json_object_set_new(r, "message", sentence(str(finding, "message")));
    /* A measured share (--profile) is the result's rank: SARIF's 0.0-100.0 priority. */
    json_t *prof = json_object_get(finding, "profile");
    if (prof)
        json_object_set_new(r, "rank", json_real(json_number_value(json_object_get(prof, "share"))));
    json_t *where = physical_location(str(finding, "file"), region(num(finding, "line"), num(finding, "column"),
                                                                  num(finding, "end_line"),
                                                                  num(finding, "end_column")));
    json_t *loc = json_pack("{s:o}", "physicalLocation", where);
    const char *function = str(finding, "function");
    if (*function)
        json_object_set_new(loc, "logicalLocations",
                            json_pack("[{s:o, s:s}]", "fullyQualifiedName", jstr(function), "kind", "function"));
    json_object_set_new(r, "locations", json_pack("[o]", loc));
    const char *fingerprint = str(finding, "fingerprint");
    if (*fingerprint)
        json_object_set_new(r, "partialFingerprints", json_pack("{s:o}", FINGERPRINT_KEY, jstr(fingerprint)));
    json_t *related = json_object_get(finding, "related");
    if (json_array_size(related))
        json_object_set_new(r, "relatedLocations", related_locations(related));
    json_t *hot_path = json_object_get(finding, "hot_path");
    if (json_array_size(hot_path))
        json_object_set_new(r, "codeFlows", code_flows(hot_path));
    json_t *fx = fixes(json_object_get(finding, "fixes"));
    if (json_array_size(fx))
        json_object_set_new(r, "fixes", fx);
    else
        json_decref(fx);

    json_t *props = json_object();
    json_object_set_new(props, "confidence", jstr(str(finding, "confidence")));
    json_object_set_new(props, "function", jstr(function));
    const char *key;
    json_t *value;
    json_object_foreach(finding, key, value) {
        if (!is_core_key(key))
            json_object_set(props, key, value);
    }
    /* Unverified fixes are not offered as SARIF fixes, but they are not hidden either. */
    size_t i;
    json_t *fix;
    json_t *unverified = json_array();
    json_array_foreach(json_object_get(finding, "fixes"), i, fix)
        if (!json_is_true(json_object_get(fix, "verified")))
            json_array_append(unverified, fix);
    if (json_array_size(unverified))
        json_object_set_new(props, "unverified_fixes", unverified);
    else
        json_decref(unverified);
    json_object_set_new(r, "properties", props);
    return r;
}

/*
 * invocations[0]: from the report's `invocation` (how hotscan was run, its exit status and
 * the notes it printed) when it has one, and its `errors`: one error notification per TU
 * that failed, at the TU's file, then one notification per note.
 */
static json_t *invocation(json_t *report)
{
    json_t *errors = json_object_get(report, "errors");
    json_t *given = json_object_get(report, "invocation");
    json_t *notes = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(errors, i, e) {
        json_t *n = json_object();
        json_object_set_new(n, "level", json_string("error"));
        json_object_set_new(n, "message", sentence(str(e, "message")));
        const char *file = str(e, "file");
        if (*file)
            json_object_set_new(n, "locations",
                                json_pack("[{s:o}]", "physicalLocation", physical_location(file, NULL)));
        json_array_append_new(notes, n);
    }
    json_array_foreach(json_object_get(given, "notes"), i, e) {
        const char *level = str(e, "level");
        if (strcmp(level, "error") != 0 && strcmp(level, "warning") != 0)
            level = "note";
        json_array_append_new(notes, json_pack("{s:s, s:o}", "level", level, "message", sentence(str(e, "message"))));
    }
    json_t *inv = json_object();
    if (given) {
        json_object_set_new(inv, "commandLine", jstr(str(given, "command_line")));
        json_t *args = json_array();
        json_array_foreach(json_object_get(given, "arguments"), i, e)
            json_array_append_new(args, jstr(json_string_value(e) ? json_string_value(e) : ""));
        json_object_set_new(inv, "arguments", args);
    }
    json_t *ok = json_object_get(given, "execution_successful");
    json_object_set_new(inv, "executionSuccessful",
                        json_boolean(json_is_boolean(ok) ? json_is_true(ok) : json_array_size(errors) == 0));
    json_t *code = json_object_get(given, "exit_code");
    if (json_is_integer(code))
        json_object_set_new(inv, "exitCode", json_integer(json_integer_value(code)));
    const char *cwd = str(given, "working_directory");
    if (*cwd)
        json_object_set_new(inv, "workingDirectory", json_pack("{s:o}", "uri", root_uri(cwd)));
    if (json_array_size(notes))
        json_object_set_new(inv, "toolExecutionNotifications", notes);
    else
        json_decref(notes);
    return inv;
}

static json_t *sarif_log(json_t *report)
{
    const char *version = str(json_object_get(report, "tool"), "version");
    const char *docs_url = str(json_object_get(report, "tool"), "docs_url");
    if (!*version)
        version = HOTSCAN_VERSION;

    json_t *rules = json_array();
    size_t nrules;
    const hs_rule *const *table = hs_rules_all(&nrules);
    for (size_t i = 0; i < nrules; i++)
        json_array_append_new(rules, rule_descriptor(table[i], docs_url));

    json_t *results = json_array();
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(report, "findings"), i, f)
        json_array_append_new(results, result(f, rules));

    json_t *driver = json_object();
    json_object_set_new(driver, "name", json_string("hotscan"));
    json_object_set_new(driver, "version", jstr(version));
    json_object_set_new(driver, "semanticVersion", jstr(version));
    char *info = doc_uri(docs_url, "docs/hotscan.md");
    if (info)
        json_object_set_new(driver, "informationUri", jstr(info));
    free(info);
    json_object_set_new(driver, "rules", rules);

    json_t *run = json_object();
    json_object_set_new(run, "tool", json_pack("{s:o}", "driver", driver));
    json_object_set_new(run, "invocations", json_pack("[o]", invocation(report)));
    const char *root = str(report, "root");
    if (*root)
        json_object_set_new(run, "originalUriBaseIds",
                            json_pack("{s:{s:o, s:o}}", BASE_ID, "uri", root_uri(root), "description",
                                      message("The root the scan was run with; every path is relative to it.")));
    json_object_set_new(run, "results", results);

    json_t *log = json_object();
    json_object_set_new(log, "$schema", json_string(SARIF_SCHEMA));
    json_object_set_new(log, "version", json_string("2.1.0"));
    json_object_set_new(log, "runs", json_pack("[o]", run));
    return log;
}

bool hs_emit_sarif(FILE *out, json_t *report)
{
    json_t *log = sarif_log(report);
    bool ok = json_dumpf(log, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0;
    json_decref(log);
    return ok && fputc('\n', out) != EOF && !ferror(out);
}

/*
 * atomic_mixed_access.c - atomic-mixed-access: a plain, non-atomic update (`x++;`,
 * `s->n += k;`) of an integer that other code updates atomically (`__atomic_add_fetch(&x,
 * 1, ...)`, `atomicIncr(x, 1)`, HA_ATOMIC_INC(&x)). Two threads doing the plain update, or one
 * doing it while another does the atomic one, can lose an update: the plain `++` reads,
 * adds and writes back, and a concurrent add in between is overwritten. In C and C++ it is
 * a data race, undefined behaviour.
 *
 * Reads the plain-use summaries of the atomics family (each TU lists where its first plain
 * updates of a variable are, collect_atomics.c) and the variables as atomic_vars.c groups
 * them: the atomic update may be in another TU, through a wrapper, or through a pointer to
 * the same field. Reported at each plain update, without a fix: making it atomic changes
 * what the program does (it removes the race), which a fix-it never does.
 */
#include "hotscan/common.h"
#include "hotscan/findings.h"
#include "hotscan/rules.h"
#include "hotscan/strmap.h"
#include "atomic_facts.h"
#include "atomic_vars.h"

#include <stdlib.h>
#include <string.h>

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* An atomic read-modify-write: what a plain update loses updates against. */
static bool is_atomic_update(const hs_atomic_op *u)
{
    switch (u->op) {
    case HS_AOP_FETCH_ADD:
    case HS_AOP_ADD_FETCH:
    case HS_AOP_FETCH_SUB:
    case HS_AOP_SUB_FETCH:
    case HS_AOP_EXCHANGE:
    case HS_AOP_CAS:
    case HS_AOP_BITWISE: return u->form != HS_AFORM_ACCESSOR;
    default: return false;
    }
}

/* Whether an identity starts at a field (`c:@S@stats@FI@hits`, `...@FI@fe_counters.cum_req`):
 * the object is reached through a pointer or `this`, and may be one no other thread sees yet. */
static bool rooted_at_field(const char *usr)
{
    const char *dot = strchr(or_empty(usr), '.');
    const char *fi = strstr(or_empty(usr), "@FI@");
    return fi && (!dot || fi < dot);
}

/* "file.c:LINE", the base name of `file`. */
static char *where(const char *file, long long line)
{
    file = or_empty(file);
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    return hs_printf("%s:%lld", base, line);
}

/* The atomic update to cite for a plain update at `site` of the summary `plain`: one on the
 * same variable if any, in the same function if there is one (the other arm of its branch),
 * else one on an object that may be the same (another path through the field). */
static const hs_atomic_op *atomic_update_for(const hs_atomic_var *v, const hs_atomic_op *plain,
                                             const hs_plain_update *site, bool *same)
{
    const hs_atomic_op *other = NULL, *same_var = NULL;
    for (size_t i = 0; i < v->judged.len; i++) {
        const hs_atomic_op *u = v->judged.items[i];
        if (!is_atomic_update(u))
            continue;
        if (u->var == plain->var) {
            if (u->site.file == site->site.file && strcmp(or_empty(u->function_name), or_empty(site->function_name)) == 0) {
                *same = true;
                return u;
            }
            if (!same_var)
                same_var = u;
        } else if (!other) {
            other = u;
        }
    }
    *same = same_var != NULL;
    return same_var ? same_var : other;
}

static void report(hs_judge_ctx *ctx, const hs_atomic_op *plain, const hs_plain_update *site,
                   const hs_atomic_op *atomic, bool same)
{
    char *atomic_at = where(atomic->site.file, (long long)atomic->site.line);
    bool field = rooted_at_field(plain->var);
    const char *confidence = site->beside || field || !same ? "low" : "medium";
    const char *why = site->beside
                          ? " (low confidence: it is in one arm of a branch whose other arm updates it atomically; "
                            "if the branch's condition tells whether other threads run, this is no race)"
                      : !same ? " (low confidence: the atomic update is through a pointer to the same field, "
                                "which may be another object)"
                      : field ? " (low confidence: a field reached through a pointer; the object updated here may "
                                "be one no other thread sees: a private copy, one not yet published, one under a lock)"
                              : " (medium confidence: hotscan cannot see whether it runs before other threads start "
                                "or under a lock every atomic updater holds)";
    const char *text = or_empty(site->text);
    char *message = hs_printf("plain, non-atomic update '%.48s%s' of '%s', which other code updates atomically (%s): "
                              "a lost-update race, as an update another thread makes between this one's read and "
                              "write is overwritten (and a data race in C and C++); make it atomic (a relaxed add is "
                              "enough for a counter)%s",
                              text, strlen(text) > 48 ? "..." : "", or_empty(plain->var_name), atomic_at, why);
    json_t *finding = hs_finding_at("atomic-mixed-access", "warning", confidence, &site->site,
                                    site->function_name && site->function_name[0] ? site->function_name : NULL,
                                    message);
    hs_finding_add_related(finding, atomic->site.file, atomic->site.line, atomic->site.column,
                           "updated atomically here");
    if (atomic->var_decl.file)
        hs_finding_add_related(finding, atomic->var_decl.file, atomic->var_decl.line, atomic->var_decl.column,
                               "the variable is declared here");
    json_object_set_new(finding, "fix_unavailable",
                        json_string("making the update atomic removes a race, which changes what the program does; "
                                    "hotscan does not write that change"));
    if (plain->var_name)
        json_object_set_new(finding, "variable", json_string(plain->var_name));
    json_object_set_new(finding, "operation", json_string("plain_update"));
    if (text[0])
        json_object_set_new(finding, "fingerprint_basis", json_string(text));
    hs_judge_add_finding(ctx, finding);
    free(message);
    free(atomic_at);
}

static void judge(hs_judge_ctx *ctx)
{
    const hs_atomic_store *atomics = hs_atomic_facts(ctx->program);
    hs_atomic_vars *vars = hs_atomic_vars_create(atomics);
    /* A plain update is judged with each variable that may be its object (a path and its
     * field): reported once. */
    hs_strmap *reported = hs_strmap_create();
    for (size_t k = 0; k < vars->order.len; k++) {
        const char *usr = vars->order.items[k];
        if (hs_atomic_var_is_parameter(usr))
            continue;
        const hs_atomic_var *v = hs_strmap_get(vars->by_usr, usr);
        for (size_t i = 0; i < v->judged.len; i++) {
            const hs_atomic_op *plain = v->judged.items[i];
            if (plain->op != HS_AOP_PLAIN || !plain->plain->update_sites_len)
                continue;
            for (size_t s = 0; s < plain->plain->update_sites_len; s++) {
                const hs_plain_update *site = &plain->plain->update_sites[s];
                bool same = false;
                const hs_atomic_op *atomic = atomic_update_for(v, plain, site, &same);
                if (!atomic)
                    break;
                char *key = hs_printf("%s:%u", or_empty(site->site.file), site->site.offset);
                bool seen = hs_strmap_has(reported, key);
                if (!seen)
                    hs_strmap_put(reported, key, (void *)1);
                free(key);
                if (!seen)
                    report(ctx, plain, site, atomic, same);
            }
        }
    }
    hs_strmap_delete(reported);
    hs_atomic_vars_delete(vars);
}

static const hs_fact_family *const reads[] = {&hs_family_atomics, NULL};

static const char *const data_sections[] = {"atomic_wrappers", NULL};

const hs_rule hs_rule_atomic_mixed_access = {
    .id = "atomic-mixed-access",
    .summary = "A plain, non-atomic update of an integer that other code updates atomically.",
    .description = "`stat_numcommands++` beside `atomicIncr(stat_numcommands, 1)` elsewhere: the plain "
                   "update reads, adds and writes back, so an update another thread makes in between is "
                   "lost, and the atomic operations no longer keep the count exact. In C and C++ it is a "
                   "data race. hotscan checks every use of the variable across the program, and reports "
                   "each plain update without a fix: make it atomic (relaxed is enough for a counter).",
    .doc = "docs/rules/atomic-mixed-access.md",
    .default_severity = "warning",
    .precision = "low", /* docs/rules/atomic-mixed-access.md, "Precision" */
    .data_sections = data_sections,
    .judge = judge,
    .reads = reads,
};

/*
 * fixits.h - small text helpers the rules use to build fix-it edits.
 *
 * A fix is a list of edits {file, offset, length, replacement} on the files as they
 * were scanned; the scan verifies each fix by reparsing its TU with the edits applied
 * (analyzer/fix/verify.c) before calling it "verified".
 */
#ifndef HOTSCAN_FIXITS_H
#define HOTSCAN_FIXITS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

json_t *hs_edit_new(const char *file, size_t offset, size_t length, const char *replacement);

/* An identifier, a number, or a chain of members and subscripts: safe to repeat. */
bool hs_text_is_simple(const char *text);
/* The text in parentheses unless it is simple (for `OBJ.method()` and `&OBJ`). */
char *hs_text_operand(const char *text);
/* "&x" -> "x", "p" -> "*p": the object an address expression points to. */
char *hs_text_deref(const char *address);

/* Splits "name(a, f(b, c), d)" into its top-level arguments; false when not a call. */
bool hs_split_call_text(const char *text, char **name_out, json_t **args_out);
/* "name(a, b)" from a name and an argument array. */
char *hs_join_call_text(const char *name, json_t *args);

/* Whether a line of text[0, len) after its first starts (after blanks) with `#`: a
 * preprocessor directive, maybe an #if arm, inside code a rewrite would replace. */
bool hs_text_has_directive(const char *text, size_t len);
/*
 * Whether text[start, end), code the parse found to be a whole statement of its own (or a
 * for clause), is one in every configuration the file can be built in. Read from `from`,
 * the `{` of the block holding it: the token before it is `;` `{` `}` `)` `:` `else` or `do`,
 * the token after it `;` or `)`, and no preprocessor directive line lies between either of
 * them and the code, nor inside it. A directive there may start an #if arm that puts, in
 * another configuration, tokens around the code that use its value
 * (`#ifndef NDEBUG` / `int id =` / `#endif` / `++next_id;`). False when it cannot tell.
 */
bool hs_text_statement_alone(const char *text, size_t size, size_t from, size_t start, size_t end);

#endif

/*
 * header_prefix.h - the state the preprocessor was in when a TU entered each header, as a
 * key (header_prefix.c), private to the extractor: a worker skips every function body of a
 * header it walked in an earlier TU with the same key (extract.c, "Header functions walked
 * once").
 */
#ifndef HOTSCAN_HEADER_PREFIX_H
#define HOTSCAN_HEADER_PREFIX_H

#include <clang-c/Index.h>
#include <stdbool.h>
#include <stddef.h>

/* Called once for each file the TU entered, main file excepted: `key` (16 bytes) is the
 * state at its entry, or NULL when the file was entered more than once (two states). */
typedef void (*hs_prefix_key_fn)(CXFile file, const unsigned char *key, void *user);

/* Keys for the files `tu` entered. `context` (`context_size` bytes) is the digest of the
 * command line and its directory (extract.c's context_digest); `main_dir` the main file's
 * folder (hashed only when the main file probes files without entering them). */
void hs_header_prefix_keys(CXTranslationUnit tu, const void *context, size_t context_size, const char *main_dir,
                           hs_prefix_key_fn each, void *user);

/*
 * The digest of text[0, cut) as the preprocessor reads it (backslash-newlines spliced,
 * comments one space, white space runs one space or one newline; literals and #include
 * <...> names as written), for each of the `ncuts` cuts (ascending): out[k] is cuts[k]'s.
 * Exposed for tests.
 */
void hs_normalized_prefix_digests(const char *text, size_t size, const size_t *cuts, size_t ncuts,
                                  unsigned char (*out)[16]);

#endif

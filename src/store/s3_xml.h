/* s3_xml.h - the little XML an S3 server answers with, read without a parser.
 *
 * S3 responses are flat: a list of <Contents> or <Version> elements, each a
 * handful of leaf elements, an <Error> with a <Code>. Scanning for one
 * element by name at a time is enough and never recurses; every length comes
 * from the buffer given, so a hostile or truncated response can only fail to
 * match. */
#ifndef IG_STORE_S3_XML_H
#define IG_STORE_S3_XML_H

#include <stdbool.h>
#include <stddef.h>

/* The next element named tag at or after *pos in [text, text + len): its
 * content [*content, *content + *clen), *pos moved past its end tag. An
 * element with attributes matches; a self-closing one has empty content.
 * False when there is none (or it is not closed). */
bool ig_xml_next(const char *text, size_t len, size_t *pos, const char *tag, const char **content,
                 size_t *clen);
/* The first element named tag anywhere in [text, text + len), its text with
 * entities decoded into out (at most cap - 1 bytes and a NUL). False when it
 * is absent or does not fit. */
bool ig_xml_get(const char *text, size_t len, const char *tag, char *out, size_t cap);
/* Decode the entities of [s, s + n) (&amp; &lt; &gt; &quot; &apos; &#N;
 * &#xH;) into out; false when it does not fit or an entity is malformed. */
bool ig_xml_text(const char *s, size_t n, char *out, size_t cap);
/* Escape text for an XML element's content (a key in a request body):
 * writes at most cap - 1 bytes and a NUL; false when it does not fit. */
bool ig_xml_escape(const char *s, char *out, size_t cap);

#endif

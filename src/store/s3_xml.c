/* s3_xml.c - scanning S3's XML answers for elements by name (s3_xml.h). */
#include "store/s3_xml.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Does an element start tag `<tag` end right at p (at '>', '/' or a space)? */
static bool name_ends(const char *p, const char *end)
{
    return p < end &&
           (*p == '>' || *p == '/' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r');
}

bool ig_xml_next(const char *text, size_t len, size_t *pos, const char *tag, const char **content,
                 size_t *clen)
{
    size_t tl = strlen(tag);
    const char *end = text + len;
    const char *p = text + (*pos < len ? *pos : len);
    while (p < end) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        if (!lt) return false;
        p = lt + 1;
        if ((size_t)(end - p) < tl || memcmp(p, tag, tl) || !name_ends(p + tl, end)) continue;
        const char *gt = memchr(p + tl, '>', (size_t)(end - (p + tl)));
        if (!gt) return false;
        if (gt[-1] == '/') { /* <Tag/> */
            *content = gt + 1;
            *clen = 0;
            *pos = (size_t)(gt + 1 - text);
            return true;
        }
        const char *c = gt + 1;
        /* the end tag: </tag> (the same name never nests in S3's answers) */
        for (const char *q = c; q < end;) {
            const char *l2 = memchr(q, '<', (size_t)(end - q));
            if (!l2 || (size_t)(end - l2) < tl + 3) return false;
            if (l2[1] == '/' && !memcmp(l2 + 2, tag, tl) && l2[2 + tl] == '>') {
                *content = c;
                *clen = (size_t)(l2 - c);
                *pos = (size_t)(l2 + 3 + tl - text);
                return true;
            }
            q = l2 + 1;
        }
        return false;
    }
    return false;
}

bool ig_xml_text(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        char ch = s[i];
        if (ch == '&') {
            const char *semi = memchr(s + i, ';', n - i < 12 ? n - i : 12);
            if (!semi) return false;
            size_t el = (size_t)(semi - (s + i)) + 1;
            const char *e = s + i;
            unsigned long code = 0;
            if (el == 5 && !memcmp(e, "&amp;", 5))
                code = '&';
            else if (el == 4 && !memcmp(e, "&lt;", 4))
                code = '<';
            else if (el == 4 && !memcmp(e, "&gt;", 4))
                code = '>';
            else if (el == 6 && !memcmp(e, "&quot;", 6))
                code = '"';
            else if (el == 6 && !memcmp(e, "&apos;", 6))
                code = '\'';
            else if (el > 3 && e[1] == '#') {
                bool hex = e[2] == 'x' || e[2] == 'X';
                for (size_t k = hex ? 3 : 2; k < el - 1; k++) {
                    char d = e[k];
                    unsigned v;
                    if (d >= '0' && d <= '9')
                        v = (unsigned)(d - '0');
                    else if (hex && d >= 'a' && d <= 'f')
                        v = (unsigned)(d - 'a' + 10);
                    else if (hex && d >= 'A' && d <= 'F')
                        v = (unsigned)(d - 'A' + 10);
                    else
                        return false;
                    code = code * (hex ? 16 : 10) + v;
                    if (code > 0x10FFFF) return false;
                }
                if (code == 0) return false;
            } else {
                return false;
            }
            /* UTF-8 */
            uint8_t u[4];
            size_t ul;
            if (code < 0x80)
                u[0] = (uint8_t)code, ul = 1;
            else if (code < 0x800)
                u[0] = (uint8_t)(0xC0 | code >> 6), u[1] = (uint8_t)(0x80 | (code & 63)), ul = 2;
            else if (code < 0x10000)
                u[0] = (uint8_t)(0xE0 | code >> 12), u[1] = (uint8_t)(0x80 | (code >> 6 & 63)),
                u[2] = (uint8_t)(0x80 | (code & 63)), ul = 3;
            else
                u[0] = (uint8_t)(0xF0 | code >> 18), u[1] = (uint8_t)(0x80 | (code >> 12 & 63)),
                u[2] = (uint8_t)(0x80 | (code >> 6 & 63)), u[3] = (uint8_t)(0x80 | (code & 63)),
                ul = 4;
            if (o + ul >= cap) return false;
            memcpy(out + o, u, ul);
            o += ul;
            i += el;
            continue;
        }
        if (o + 1 >= cap) return false;
        out[o++] = ch;
        i++;
    }
    if (cap == 0) return false;
    out[o] = '\0';
    return true;
}

bool ig_xml_get(const char *text, size_t len, const char *tag, char *out, size_t cap)
{
    size_t pos = 0;
    const char *c;
    size_t cl;
    return ig_xml_next(text, len, &pos, tag, &c, &cl) && ig_xml_text(c, cl, out, cap);
}

bool ig_xml_escape(const char *s, char *out, size_t cap)
{
    size_t o = 0;
    for (; *s; s++) {
        const char *rep = NULL;
        switch (*s) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        case '\'':
            rep = "&apos;";
            break;
        default:
            break;
        }
        size_t n = rep ? strlen(rep) : 1;
        if (o + n >= cap) return false;
        if (rep)
            memcpy(out + o, rep, n);
        else
            out[o] = *s;
        o += n;
    }
    if (cap == 0) return false;
    out[o] = '\0';
    return true;
}

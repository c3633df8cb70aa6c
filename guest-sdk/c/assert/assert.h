/* dixit's assert.h for test code: a failed assert() is a failed test (exit 1, `wrong_answer`),
 * not an abort (`runtime_error`). Like the standard header it may be included many times and
 * honours NDEBUG. Solutions use the standard header. */
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#include <stdio.h>
#include <stdlib.h>
#define assert(e) \
    ((e) ? (void)0 \
         : (fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #e), \
            fflush(stdout), exit(1)))
#endif
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(static_assert)
#define static_assert _Static_assert
#endif

/* dixit.h — assertions for C and C++ tests that run in dixit's sandbox.
 *
 * A failed check prints "file:line: check failed: <expression> (<values>)" to stderr and exits
 * with code 1, which dixit reports as `wrong_answer`; a crash (trap, abort) is a `runtime_error`.
 * Plain `assert()` from <assert.h> behaves the same in tests: dixit puts its own assert.h first
 * on the test's include path.
 *
 *   CHECK(cond)              CHECK_EQ(a, b)  CHECK_NE(a, b)  CHECK_LT/LE/GT/GE(a, b)
 *   CHECK_STREQ(a, b)        CHECK_NEAR(a, b, eps)           FAIL(msg)
 * CHECK_EQ and friends compare integers (printed as long long); use CHECK_NEAR for doubles.
 */
#ifndef DIXIT_H
#define DIXIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline void dixit_fail_(const char *file, int line, const char *expr, const char *values) {
    fprintf(stderr, "%s:%d: check failed: %s%s%s%s\n", file, line, expr,
            values && *values ? " (" : "", values ? values : "", values && *values ? ")" : "");
    fflush(stderr);
    fflush(stdout);
    exit(1);
}

static inline void dixit_check_int_(long long a, long long b, int ok, const char *file, int line,
                                    const char *expr) {
    if (!ok) {
        char buf[128];
        snprintf(buf, sizeof buf, "left: %lld, right: %lld", a, b);
        dixit_fail_(file, line, expr, buf);
    }
}

#ifdef __cplusplus
}
#endif

#define CHECK(cond) \
    do { if (!(cond)) dixit_fail_(__FILE__, __LINE__, #cond, ""); } while (0)
#define DIXIT_CMP_(a, b, op) \
    do { long long dixit_a_ = (long long)(a), dixit_b_ = (long long)(b); \
         dixit_check_int_(dixit_a_, dixit_b_, dixit_a_ op dixit_b_, __FILE__, __LINE__, #a " " #op " " #b); } while (0)
#define CHECK_EQ(a, b) DIXIT_CMP_(a, b, ==)
#define CHECK_NE(a, b) DIXIT_CMP_(a, b, !=)
#define CHECK_LT(a, b) DIXIT_CMP_(a, b, <)
#define CHECK_LE(a, b) DIXIT_CMP_(a, b, <=)
#define CHECK_GT(a, b) DIXIT_CMP_(a, b, >)
#define CHECK_GE(a, b) DIXIT_CMP_(a, b, >=)
#define CHECK_STREQ(a, b) \
    do { const char *dixit_a_ = (a), *dixit_b_ = (b); \
         if (!dixit_a_ || !dixit_b_ || strcmp(dixit_a_, dixit_b_) != 0) { \
             char dixit_buf_[512]; \
             snprintf(dixit_buf_, sizeof dixit_buf_, "left: \"%.200s\", right: \"%.200s\"", \
                      dixit_a_ ? dixit_a_ : "(null)", dixit_b_ ? dixit_b_ : "(null)"); \
             dixit_fail_(__FILE__, __LINE__, #a " == " #b, dixit_buf_); } } while (0)
#define CHECK_NEAR(a, b, eps) \
    do { double dixit_a_ = (double)(a), dixit_b_ = (double)(b), dixit_e_ = (double)(eps); \
         if (!(fabs(dixit_a_ - dixit_b_) <= dixit_e_)) { \
             char dixit_buf_[160]; \
             snprintf(dixit_buf_, sizeof dixit_buf_, "left: %.17g, right: %.17g, eps: %g", \
                      dixit_a_, dixit_b_, dixit_e_); \
             dixit_fail_(__FILE__, __LINE__, #a " ~= " #b, dixit_buf_); } } while (0)
#define FAIL(msg) dixit_fail_(__FILE__, __LINE__, "FAIL", (msg))

#endif /* DIXIT_H */

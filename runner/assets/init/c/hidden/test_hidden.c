/* Hidden tests: never shown to any agent; run against every final implementation. */
#include <assert.h>
#include "solution.h"

int main(void) {
    assert(count_words("") == 0);
    assert(count_words("   ") == 0);
    assert(count_words("one") == 1);
    assert(count_words(" two  words ") == 2);
    assert(count_words("a\tb\nc\r\nd") == 4);
    return 0;
}

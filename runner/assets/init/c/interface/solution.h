/* The interface tests compile against: `#include "solution.h"`. The project provides it (see
 * `interface` in dixit.toml); a coder's own solution.h is used only by the coder's own code. */
#ifndef SOLUTION_H
#define SOLUTION_H

int count_words(const char *s);

#endif

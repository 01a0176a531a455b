#!/usr/bin/env bash
# Checks that every C and C++ source is formatted with the committed .clang-format.
# Prints "PASS: clang-format" or "FAIL: clang-format" and the files that differ.
# Fix with: clang-format -i $(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
set -u
cd "$(dirname "$0")/.."
if ! command -v clang-format > /dev/null; then
    echo "FAIL: clang-format (not installed; apt-get install clang-format)"
    exit 1
fi
bad=()
for f in $(git ls-files '*.c' '*.h' '*.cpp' '*.hpp'); do
    clang-format --dry-run --Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -eq 0 ]; then
    echo "PASS: clang-format"
else
    echo "FAIL: clang-format (${#bad[@]} files differ: ${bad[*]})"
    exit 1
fi

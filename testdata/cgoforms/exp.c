#include "_cgo_export.h"
int counter;
int callBack(int v) { return goTwice(v) + 1; }
int fortytwo(void) { return 42; }

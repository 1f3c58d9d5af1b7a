#include <stdio.h>
int main(void) { puts("ingot"); return 0; }

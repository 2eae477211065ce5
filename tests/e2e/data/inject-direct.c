/*
 * inject-direct.c - calls liblatscope-cupti.so's InitializeInjection directly, as the CUDA
 * driver would in cuInit (t303). Without a driver every CUPTI call fails: the library must
 * record why, return 1 and let the program finish normally. Usage: inject-direct LIB
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 3;
    }
    int (*init)(void);
    *(void **)&init = dlsym(h, "InitializeInjection");
    if (!init) return 4;
    int a = init();
    int b = init(); /* idempotent */
    printf("InitializeInjection %d %d\n", a, b);
    return a == 1 && b == 1 ? 0 : 5;
}

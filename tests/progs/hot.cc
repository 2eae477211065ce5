// hot.cc - a C++ program for the CPU sampler's demangling test (t365): the hot loop sits in a
// member function template of a class in a namespace, so its symbol is mangled
// (_ZN6lsdemo7Spinner4spinIiEEvl...); the sampler must show it demangled.
// Usage: hot-cc CPU_SECONDS
#include <cstdlib>
#include <ctime>

namespace lsdemo {
struct Spinner {
    volatile long sink = 0;
    template <typename T> __attribute__((noinline)) void spin(long n)
    {
        for (long i = 0; i < n; i++)
            sink = sink + static_cast<T>(i);
    }
};
} // namespace lsdemo

static double cpu_now()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 1.0, end = cpu_now() + secs;
    lsdemo::Spinner s;
    while (cpu_now() < end)
        s.spin<int>(100000);
    return 0;
}

// sc_san: the LeakSanitizer options every SystemC program of this folder is linked with.
//
// SystemC runs its processes on coroutine stacks of its own. At exit, LeakSanitizer's
// stop-the-world scan takes the main thread's stack bounds from where AddressSanitizer last saw
// a stack switch; with the stack pointer outside them it walks past guard pages and can fault
// ("Tracer caught signal 11", "LeakSanitizer has encountered a fatal error"): about half the
// runs of sc_minimal on a Debian 12 machine. Not scanning thread stacks (use_stacks=0) avoids
// it at no cost to leak detection: a heap block reachable only from a stack would then be
// reported, a false positive, never a leak missed. An LSAN_OPTIONS in the environment still
// overrides it.
extern "C" __attribute__((used, visibility("default"))) const char *__lsan_default_options()
{
    return "use_stacks=0";
}

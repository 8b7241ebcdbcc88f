/*
 * Preloaded into every process of the sanitizer test build (and only there).
 *
 * Open MPI unloads its MCA components in MPI_Finalize. LeakSanitizer checks
 * for leaks after that, so every allocation a component made and kept shows
 * a stack through an unmapped module: no suppression can name it, and only
 * slow unwinding through 30 frames reached a library frame that one could.
 * That unwinding and the symbolising it caused took two thirds of the
 * sanitizer stage's time (decision 088). With the modules kept mapped, the
 * component's own name is on the stack, the lsan.supp line "mca_" matches
 * it, and ten frames are enough.
 *
 * Built without sanitizer flags, so that preloading it into mpiexec (which
 * is not instrumented) pulls no sanitizer runtime in.
 */
int dlclose(void *handle);

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}

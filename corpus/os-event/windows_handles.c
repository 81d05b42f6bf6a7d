/*
 * Windows event objects: SetEvent/ResetEvent/WaitForSingleObject on a HANDLE. They are
 * not bundled in the os_event API list: WaitForSingleObject also waits on threads,
 * processes, mutexes and semaphores (here: a thread), and HANDLE is every kind of kernel
 * object, so neither the calls nor the HANDLE variables are flagged by default.
 * docs/rules/os-event.md shows how a project adds them with --rules DIR.
 */
typedef void *HANDLE;
typedef unsigned long DWORD;
typedef int BOOL;
#define INFINITE 0xFFFFFFFFul

HANDLE CreateEventA(void *attributes, BOOL manual_reset, BOOL initial_state, const char *name);
BOOL SetEvent(HANDLE event);
BOOL ResetEvent(HANDLE event);
DWORD WaitForSingleObject(HANDLE handle, DWORD milliseconds);
BOOL CloseHandle(HANDLE handle);
HANDLE CreateThread(void *attributes, unsigned long stack, DWORD (*start)(void *), void *arg,
                    DWORD flags, DWORD *id);

static HANDLE io_completed;
static HANDLE worker_thread;

static DWORD worker(void *arg)
{
    (void)arg;
    SetEvent(io_completed);
    return 0;
}

void run_io(void)
{
    io_completed = CreateEventA(0, 1, 0, 0);
    ResetEvent(io_completed);
    worker_thread = CreateThread(0, 0, worker, 0, 0, 0);
    WaitForSingleObject(io_completed, INFINITE);
    WaitForSingleObject(worker_thread, INFINITE);
    CloseHandle(worker_thread);
    CloseHandle(io_completed);
}

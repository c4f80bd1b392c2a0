#ifndef HAUL_CSQLITE_SHIM_H
#define HAUL_CSQLITE_SHIM_H
// The system's SQLite: the daemon's journal (jobs, outcomes, the event log).
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type haul_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif

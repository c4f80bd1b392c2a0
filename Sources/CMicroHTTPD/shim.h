#ifndef HAUL_CMICROHTTPD_SHIM_H
#define HAUL_CMICROHTTPD_SHIM_H
// GNU libmicrohttpd: the daemon's HTTP server (control socket, TCP listener, events).
#include <stdarg.h>
#include <stdint.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

// Swift cannot call C's variadic functions nor import macros that cast, so the few the HTTP
// server needs are wrapped here, one to one, each with the exact C types.

/// `MHD_start_daemon` on a listening socket the caller made (`MHD_OPTION_LISTEN_SOCKET`),
/// with the idle timeout in seconds (`MHD_OPTION_CONNECTION_TIMEOUT`) and the callback at
/// the end of each request (`MHD_OPTION_NOTIFY_COMPLETED`). NULL when it fails.
static inline struct MHD_Daemon *haul_mhd_start_daemon(
    unsigned int flags, MHD_socket listen_fd, unsigned int timeout_seconds,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls) {
  return MHD_start_daemon(
      flags, 0, NULL, NULL, handler, handler_cls,
      MHD_OPTION_LISTEN_SOCKET, listen_fd,
      MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
      MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
      MHD_OPTION_END);
}

/// The socket of a connection (`MHD_CONNECTION_INFO_CONNECTION_FD`), or
/// `MHD_INVALID_SOCKET`.
static inline MHD_socket haul_mhd_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info == NULL ? MHD_INVALID_SOCKET : info->connect_fd;
}

/// `MHD_SIZE_UNKNOWN`: a response body of unknown length (sent chunked).
static inline uint64_t haul_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

/// `MHD_CONTENT_READER_END_OF_STREAM`: a content reader's body ends here, cleanly.
static inline ssize_t haul_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }

/// `MHD_CONTENT_READER_END_WITH_ERROR`: a content reader's body breaks off; the connection
/// is closed.
static inline ssize_t haul_mhd_end_with_error(void) {
  return MHD_CONTENT_READER_END_WITH_ERROR;
}

/// `MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE)`: the application is done with an
/// upgraded connection; libmicrohttpd closes its socket and frees it.
static inline enum MHD_Result haul_mhd_upgrade_close(struct MHD_UpgradeResponseHandle *urh) {
  return MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}

#endif

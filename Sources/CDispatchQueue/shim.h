#ifndef HAUL_CDISPATCHQUEUE_SHIM_H
#define HAUL_CDISPATCHQUEUE_SHIM_H
// The libdispatch calls Swift's Dispatch overlay does not offer: the queue running the
// caller, and suspending and resuming it by pointer. Logic stays in Swift
// (HaulURLSession's TaskControl says why it needs them).
#include <dispatch/dispatch.h>
#include <string.h>

/// The queue running the caller, retained, when its label is `label`; else NULL.
static inline void *haul_current_queue_labelled(const char *label) {
  const char *current = dispatch_queue_get_label(DISPATCH_CURRENT_QUEUE_LABEL);
  if (current == NULL || strcmp(current, label) != 0) return NULL;
  dispatch_queue_t queue = dispatch_get_current_queue();
  dispatch_retain(queue);
  return queue;
}

/// Stops `queue` from starting blocks once the one running ends.
static inline void haul_queue_suspend(void *queue) {
  dispatch_suspend((dispatch_queue_t)queue);
}

/// Undoes `haul_queue_suspend` and the retain of `haul_current_queue_labelled`.
static inline void haul_queue_resume_and_release(void *queue) {
  dispatch_resume((dispatch_queue_t)queue);
  dispatch_release((dispatch_queue_t)queue);
}

#endif

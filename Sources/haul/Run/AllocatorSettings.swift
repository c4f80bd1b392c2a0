import CMalloc

/// The process's allocator settings, made once at start.
enum AllocatorSettings {
  /// Keeps freed memory of up to a few MiB in the heap instead of returning it to the
  /// system after each file.
  ///
  /// Why: libcurl frees a transfer's receive buffer (see `CurlSettings`) when the transfer
  /// ends and allocates it again for the next. With glibc's defaults that buffer is mapped,
  /// or the heap grown and trimmed, each time, and the first bytes of every response land on
  /// pages the kernel must fault in and zero, once per file. The measurements are in
  /// Benchmarks/results/HISTORY.md.
  static func apply() {
    // A fixed threshold: allocations below 4 MiB come from the heap, and the heap is trimmed
    // only when 64 MiB at its top are free.
    mallopt(M_MMAP_THRESHOLD, 4 << 20)
    mallopt(M_TRIM_THRESHOLD, 64 << 20)
  }
}

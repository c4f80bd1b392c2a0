/* Benchmarks/writes/pwrite.c: writes FILES files of SIZE bytes into DIR, one thread per
 * file, with pwrite(2) calls of CHUNK bytes each, as a downloader writes its bodies; prints
 * one JSON line: wall seconds, user and system CPU seconds, and the pwrite calls and the
 * seconds spent inside them over all threads. The files are left for the caller to remove.
 *
 *     pwrite DIR CHUNK FILES SIZE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct job {
    char path[4096];
    size_t chunk;
    long long size;
    long long calls;
    double inside;  /* seconds spent inside pwrite */
    int error;
};

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *write_file(void *argument) {
    struct job *job = argument;
    unsigned char *buffer = malloc(job->chunk);
    if (!buffer) {
        job->error = ENOMEM;
        return NULL;
    }
    unsigned long long state = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)job->size;
    for (size_t i = 0; i < job->chunk; i++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        buffer[i] = (unsigned char)(state >> 56);
    }
    int fd = open(job->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        job->error = errno;
        free(buffer);
        return NULL;
    }
    for (long long offset = 0; offset < job->size;) {
        size_t want = job->chunk;
        if ((long long)want > job->size - offset) want = (size_t)(job->size - offset);
        double started = now();
        ssize_t wrote = pwrite(fd, buffer, want, offset);
        job->inside += now() - started;
        job->calls++;
        if (wrote < 0) {
            if (errno == EINTR) continue;
            job->error = errno;
            break;
        }
        offset += wrote;
    }
    if (close(fd) != 0 && !job->error) job->error = errno;
    free(buffer);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: pwrite DIR CHUNK FILES SIZE\n");
        return 2;
    }
    size_t chunk = strtoull(argv[2], NULL, 10);
    int files = atoi(argv[3]);
    long long size = strtoll(argv[4], NULL, 10);
    if (chunk == 0 || files <= 0 || files > 64 || size <= 0) {
        fprintf(stderr, "pwrite: CHUNK, FILES (1-64) and SIZE must be positive\n");
        return 2;
    }
    struct job jobs[64];
    pthread_t threads[64];
    memset(jobs, 0, sizeof jobs);
    double started = now();
    for (int i = 0; i < files; i++) {
        snprintf(jobs[i].path, sizeof jobs[i].path, "%s/pwrite-%02d.bin", argv[1], i);
        jobs[i].chunk = chunk;
        jobs[i].size = size;
        if (pthread_create(&threads[i], NULL, write_file, &jobs[i]) != 0) {
            fprintf(stderr, "pwrite: cannot start a thread\n");
            return 1;
        }
    }
    long long calls = 0;
    double inside = 0;
    for (int i = 0; i < files; i++) {
        pthread_join(threads[i], NULL);
        if (jobs[i].error) {
            fprintf(stderr, "pwrite: %s: %s\n", jobs[i].path, strerror(jobs[i].error));
            return 1;
        }
        calls += jobs[i].calls;
        inside += jobs[i].inside;
    }
    double wall = now() - started;
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("{\"wall_s\": %.6f, \"user_s\": %.6f, \"sys_s\": %.6f, \"calls\": %lld, "
           "\"inside_s\": %.6f}\n",
           wall, usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6,
           usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6, calls, inside);
    return 0;
}

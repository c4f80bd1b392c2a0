/*
 * multi: the ceiling of what libcurl can do for haul's benchmarks.
 *
 * Downloads every "URL<TAB>PATH" line of LIST with at most N transfers in flight through one
 * libcurl multi handle, each body written straight to its file with write(2). Easy handles are
 * reused (their connections stay in the multi handle's pool). No digest, no resume state, no
 * progress: nothing but libcurl and the file system.
 *
 *   gcc -O2 -o multi multi.c $(pkg-config --cflags --libs libcurl)
 *   multi -j 16 LIST
 *
 * Exits 0 when every transfer ended with CURLE_OK and status 200, 1 otherwise, 2 on misuse.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct job {
  char *url;
  char *path;
};

struct slot {
  CURL *easy;
  int fd;
  size_t job;
};

static size_t write_body(char *data, size_t size, size_t count, void *context) {
  struct slot *slot = context;
  size_t length = size * count, done = 0;
  while (done < length) {
    ssize_t n = write(slot->fd, data + done, length - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return 0;
    }
    done += (size_t)n;
  }
  return length;
}

static struct job *read_jobs(const char *path, size_t *count) {
  FILE *file = fopen(path, "r");
  if (!file) return NULL;
  size_t capacity = 1024, n = 0;
  struct job *jobs = malloc(capacity * sizeof *jobs);
  char *line = NULL;
  size_t length = 0;
  while (getline(&line, &length, file) > 0) {
    char *tab = strchr(line, '\t');
    if (!tab) continue;
    *tab = 0;
    char *end = tab + 1 + strcspn(tab + 1, "\r\n");
    *end = 0;
    if (n == capacity) jobs = realloc(jobs, (capacity *= 2) * sizeof *jobs);
    jobs[n].url = strdup(line);
    jobs[n].path = strdup(tab + 1);
    n++;
  }
  free(line);
  fclose(file);
  *count = n;
  return jobs;
}

/* Gives `slot` the next job; returns 0 when none is left. */
static int start(CURLM *multi, struct slot *slot, struct job *jobs, size_t count, size_t *next) {
  if (*next >= count) return 0;
  slot->job = (*next)++;
  slot->fd = open(jobs[slot->job].path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (slot->fd < 0) {
    perror(jobs[slot->job].path);
    exit(1);
  }
  curl_easy_setopt(slot->easy, CURLOPT_URL, jobs[slot->job].url);
  curl_easy_setopt(slot->easy, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(slot->easy, CURLOPT_WRITEDATA, slot);
  curl_easy_setopt(slot->easy, CURLOPT_PRIVATE, slot);
  curl_multi_add_handle(multi, slot->easy);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4 || strcmp(argv[1], "-j") != 0 || atoi(argv[2]) < 1) {
    fprintf(stderr, "usage: multi -j N LIST\n");
    return 2;
  }
  int parallel = atoi(argv[2]);
  size_t count = 0, next = 0, failed = 0, running_jobs = 0;
  struct job *jobs = read_jobs(argv[3], &count);
  if (!jobs) {
    perror(argv[3]);
    return 2;
  }
  curl_global_init(CURL_GLOBAL_ALL);
  CURLM *multi = curl_multi_init();
  curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)parallel);
  struct slot *slots = calloc((size_t)parallel, sizeof *slots);
  for (int i = 0; i < parallel; i++) {
    slots[i].easy = curl_easy_init();
    slots[i].fd = -1;
    running_jobs += (size_t)start(multi, &slots[i], jobs, count, &next);
  }
  while (running_jobs > 0) {
    int still = 0;
    curl_multi_perform(multi, &still);
    CURLMsg *message;
    int queued;
    while ((message = curl_multi_info_read(multi, &queued))) {
      if (message->msg != CURLMSG_DONE) continue;
      struct slot *slot;
      long status = 0;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&slot);
      curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &status);
      if (message->data.result != CURLE_OK || status != 200) {
        fprintf(stderr, "%s: %s (status %ld)\n", jobs[slot->job].url,
                curl_easy_strerror(message->data.result), status);
        failed++;
      }
      curl_multi_remove_handle(multi, slot->easy);
      close(slot->fd);
      slot->fd = -1;
      running_jobs--;
      running_jobs += (size_t)start(multi, slot, jobs, count, &next);
    }
    if (running_jobs > 0) curl_multi_poll(multi, NULL, 0, 1000, NULL);
  }
  for (int i = 0; i < parallel; i++) curl_easy_cleanup(slots[i].easy);
  curl_multi_cleanup(multi);
  curl_global_cleanup();
  return failed ? 1 : 0;
}

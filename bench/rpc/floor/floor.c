/*
 * The floor of the RPC benchmark: what h2load measures against a server that does nothing.
 *
 * It speaks just enough HTTP/2 for h2load: it answers SETTINGS and PING, and for every request
 * that ends (END_STREAM) writes canned response frames, HEADERS, DATA and trailers, with the
 * stream id patched in, in one write. No HPACK decoding, no gRPC, and of flow control only the
 * connection WINDOW_UPDATEs that keep the client sending. A request
 * with a 5-byte body (an empty message) gets the Health answer (SERVING), any other the Query
 * response read from a file. Whatever a real server's p50 is above this one's is the server's
 * own time; the rest is h2load, the kernel and the machine.
 *
 * Usage: floor PORT QUERY_RESPONSE_FILE   (loopback, one thread per connection)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static uint8_t query_message[65536];
static size_t query_length;

static void put_frame_header(uint8_t *p, size_t length, uint8_t type, uint8_t flags, uint32_t stream) {
  p[0] = (uint8_t)(length >> 16); p[1] = (uint8_t)(length >> 8); p[2] = (uint8_t)length;
  p[3] = type; p[4] = flags;
  p[5] = (uint8_t)(stream >> 24) & 0x7f; p[6] = (uint8_t)(stream >> 16); p[7] = (uint8_t)(stream >> 8);
  p[8] = (uint8_t)stream;
}

/* HEADERS :status 200 (static index 8), content-type: application/grpc (literal, indexed name 31). */
static const uint8_t response_headers[] = {0x88, 0x0f, 0x10, 16, 'a', 'p', 'p', 'l', 'i', 'c', 'a', 't', 'i', 'o', 'n',
                                           '/', 'g', 'r', 'p', 'c'};
/* Trailers grpc-status: 0 (literal, new name). */
static const uint8_t trailers[] = {0x00, 11, 'g', 'r', 'p', 'c', '-', 's', 't', 'a', 't', 'u', 's', 1, '0'};

static size_t build_response(uint8_t *out, uint32_t stream, int health) {
  static const uint8_t serving[] = {0x08, 0x01};
  const uint8_t *message = health ? serving : query_message;
  size_t length = health ? sizeof serving : query_length;
  size_t n = 0;
  put_frame_header(out + n, sizeof response_headers, 1, 0x4, stream);
  memcpy(out + n + 9, response_headers, sizeof response_headers);
  n += 9 + sizeof response_headers;
  put_frame_header(out + n, 5 + length, 0, 0, stream);
  out[n + 9] = 0;
  out[n + 10] = (uint8_t)(length >> 24); out[n + 11] = (uint8_t)(length >> 16);
  out[n + 12] = (uint8_t)(length >> 8); out[n + 13] = (uint8_t)length;
  memcpy(out + n + 14, message, length);
  n += 14 + length;
  put_frame_header(out + n, sizeof trailers, 1, 0x5, stream);
  memcpy(out + n + 9, trailers, sizeof trailers);
  return n + 9 + sizeof trailers;
}

static void *serve(void *arg) {
  int fd = (int)(intptr_t)arg;
  static const uint8_t settings[9] = {0, 0, 0, 4, 0, 0, 0, 0, 0};
  static const uint8_t settings_ack[9] = {0, 0, 0, 4, 1, 0, 0, 0, 0};
  uint8_t in[1 << 16], out[1 << 17];
  size_t have = 0, skip_preface = 24, unacknowledged = 0;
  uint32_t body_bytes[1024] = {0}; /* request DATA bytes by (stream id / 2) % 1024 */
  if (write(fd, settings, sizeof settings) < 0) goto done;
  for (;;) {
    ssize_t got = read(fd, in + have, sizeof in - have);
    if (got <= 0) break;
    have += (size_t)got;
    size_t at = 0, n = 0;
    if (skip_preface) {
      size_t k = have < skip_preface ? have : skip_preface;
      at += k;
      skip_preface -= k;
    }
    while (have - at >= 9) {
      uint8_t *f = in + at;
      size_t length = ((size_t)f[0] << 16) | ((size_t)f[1] << 8) | f[2];
      if (have - at < 9 + length) break;
      uint8_t type = f[3], flags = f[4];
      uint32_t stream = ((uint32_t)(f[5] & 0x7f) << 24) | ((uint32_t)f[6] << 16) | ((uint32_t)f[7] << 8) | f[8];
      if (type == 4 && !(flags & 1)) {
        memcpy(out + n, settings_ack, 9);
        n += 9;
      } else if (type == 6 && !(flags & 1) && length == 8) {
        put_frame_header(out + n, 8, 6, 1, 0);
        memcpy(out + n + 9, f + 9, 8);
        n += 17;
      } else if ((type == 0 || type == 1) && stream) {
        if (type == 0) {
          body_bytes[(stream / 2) % 1024] += (uint32_t)length;
          unacknowledged += length;
        }
        if (flags & 1) {
          n += build_response(out + n, stream, body_bytes[(stream / 2) % 1024] == 5);
          body_bytes[(stream / 2) % 1024] = 0;
        }
      }
      at += 9 + length;
      if (unacknowledged >= 16384) {
        put_frame_header(out + n, 4, 8, 0, 0);
        out[n + 9] = (uint8_t)(unacknowledged >> 24); out[n + 10] = (uint8_t)(unacknowledged >> 16);
        out[n + 11] = (uint8_t)(unacknowledged >> 8); out[n + 12] = (uint8_t)unacknowledged;
        n += 13;
        unacknowledged = 0;
      }
      if (n > sizeof out - 2048 - query_length) {
        if (write(fd, out, n) < 0) goto done;
        n = 0;
      }
    }
    if (n && write(fd, out, n) < 0) break;
    memmove(in, in + at, have - at);
    have -= at;
  }
done:
  close(fd);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: floor PORT QUERY_RESPONSE_FILE\n");
    return 2;
  }
  FILE *file = fopen(argv[2], "rb");
  if (!file) {
    perror(argv[2]);
    return 2;
  }
  query_length = fread(query_message, 1, sizeof query_message, file);
  fclose(file);
  int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1]))};
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 128)) {
    perror("listen");
    return 1;
  }
  for (;;) {
    int fd = accept(listener, NULL, NULL);
    if (fd < 0) continue;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    pthread_t thread;
    pthread_create(&thread, NULL, serve, (void *)(intptr_t)fd);
    pthread_detach(thread);
  }
}

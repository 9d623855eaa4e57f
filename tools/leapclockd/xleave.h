/*
 * xleave.h - what the interleaved mode needs to remember of each client
 * (chrony's `xleave`; draft-ietf-ntp-interleaved-modes).
 *
 * In the interleaved mode a client's request carries, as its origin
 * timestamp, the receive timestamp of the server's previous reply to it.
 * A server that kept, for that receive timestamp, the time the previous
 * reply actually left (the kernel's transmit timestamp, known only after
 * it was sent) answers with it: origin = the request's receive timestamp,
 * receive = this request's, transmit = the previous reply's kernel
 * transmit timestamp. A request whose origin names nothing kept is
 * answered in the basic mode.
 *
 * The table is bounded and allocated once: a hash of the client's address
 * (not its port: chrony sends each request from a new port; SipHash-2-4 under a key random per start) picks one slot, which
 * keeps the last (receive -> transmit) pair of whichever client used it
 * last: a new client evicts an older one, whose next request then gets a
 * basic answer. Safe from any thread at once (one lock per 64 slots, held
 * for a copy).
 */
#ifndef LD_XLEAVE_H
#define LD_XLEAVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* SipHash-2-4 (Aumasson and Bernstein, 2012) of `len` bytes under the
 * 128-bit key k. */
uint64_t ld_siphash24(const uint64_t k[2], const uint8_t *in, size_t len);
/* A fresh random 128-bit key (getrandom, else /dev/urandom, else the
 * time and pid, with a warning logged). */
void ld_random_key(uint64_t key[2]);

struct ld_xleave;

/* A table of `slots` entries (rounded up to a power of two, at least 64);
 * NULL if out of memory. */
struct ld_xleave *ld_xleave_new(size_t slots);
void ld_xleave_free(struct ld_xleave *x);
/* How many clients the table holds (the size asked, rounded up). */
size_t ld_xleave_slots(const struct ld_xleave *x);
/* A reply with receive timestamp `rx` (NTP format, as sent) goes to
 * `client`: its slot now holds (rx, transmit unknown). */
void ld_xleave_sent(struct ld_xleave *x, const struct sockaddr *client,
                    uint64_t rx);
/* The kernel's transmit timestamp `tx` (NTP format, on the served scale)
 * of the reply to `client` with receive timestamp `rx`: kept if the slot
 * still holds that reply. Returns 1 if kept, 0 if the slot moved on. */
int ld_xleave_tx(struct ld_xleave *x, const struct sockaddr *client,
                 uint64_t rx, uint64_t tx);
/* A request from `client` with origin timestamp `org`: 1 and *tx if the
 * client's slot holds a reply with receive timestamp org whose transmit
 * timestamp is known (answer interleaved), else 0 (answer basic). */
int ld_xleave_lookup(struct ld_xleave *x, const struct sockaddr *client,
                     uint64_t org, uint64_t *tx);

#endif

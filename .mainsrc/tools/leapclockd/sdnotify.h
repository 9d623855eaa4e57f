/*
 * sdnotify.h - systemd's readiness and watchdog notifications, sent with
 * the protocol itself (sd_notify(3)): one datagram "READY=1" or
 * "WATCHDOG=1" to the AF_UNIX socket named by $NOTIFY_SOCKET (a path, or
 * "@name" for an abstract one). No libsystemd: outside systemd, with no
 * $NOTIFY_SOCKET, both calls do nothing.
 *
 * The watchdog: systemd sets $WATCHDOG_USEC (and $WATCHDOG_PID, our pid)
 * from the unit's WatchdogSec=. ld_sd_watchdog() is called from the tick
 * that updates the timeline page (every 250 ms), and sends WATCHDOG=1 at
 * most every WATCHDOG_USEC/4: a daemon whose page stops being updated stops
 * feeding the watchdog, and systemd restarts it.
 */
#ifndef LD_SDNOTIFY_H
#define LD_SDNOTIFY_H

/* Sends READY=1 (with the daemon's status line): call once the page is
 * published and every socket is bound. 0 sent or nothing to do, -1 on a
 * send error (logged once as a warning; the daemon goes on). */
int ld_sd_ready(void);
/* WATCHDOG=1 if a watchdog is set for us and WATCHDOG_USEC/4 has passed
 * since the last one (monotonic clock). Cheap when there is no watchdog. */
void ld_sd_watchdog(void);

#endif

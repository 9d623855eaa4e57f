"""leapclock: leap-second-correct clocks, the leap table and conversions,
from Python, over the C library libleapclock.so.1 (ctypes: no compiler).

    >>> import leapclock
    >>> t = leapclock.now()              # UTC, 23:59:60 included
    >>> t.isoformat(3)                   # '2016-12-31T23:59:60.250Z' in a leap
    >>> t.leap                           # True during an inserted second
    >>> leapclock.now_ns(leapclock.TAI)  # TAI ns (POSIX + TAI-UTC)
    >>> table = leapclock.LeapTable.system()
    >>> table.tai_utc(leapclock.UTCTime.parse("2017-01-01T00:00:00Z"))   # 37

Time values: UTCTime is a UTC instant that keeps the 60th second (the C
library's convention: `sec` is the POSIX second of 23:59:59 and `nsec` runs
up to 2e9 during 23:59:60); TAI and the other uniform scales are int
nanoseconds. The library is found by $LEAPCLOCK_LIBRARY (a path), else as
libleapclock.so.1 by the dynamic loader. See docs/python.md.
"""

import ctypes
import datetime as _dt
import enum
import os
from collections import namedtuple

__all__ = [
    "Clock", "MONOTONIC_RAW", "MONOTONIC", "BOOTTIME", "TAI", "REALTIME",
    "UTC", "UTC_SLS", "LeapclockError", "UTCTime", "LeapTable", "Leap",
    "TableInfo", "TimelineInfo", "now", "now_ns", "gettime",
    "timeline_info", "next_leap", "tai_from_utc", "utc_from_tai",
    "tai_from_unix", "unix_from_tai", "gps_from_tai", "tai_from_gps",
    "format_tai", "library", "version",
]

# ---- the library --------------------------------------------------------


def _load():
    path = os.environ.get("LEAPCLOCK_LIBRARY") or "libleapclock.so.1"
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            "leapclock: cannot load %s (%s): install libleapclock1, or run "
            "`sudo ldconfig` after `make install` to /usr/local, or set "
            "LEAPCLOCK_LIBRARY to the library's path" % (path, e)) from None


_lib = _load()
library = getattr(_lib, "_name", None)

_i64 = ctypes.c_int64
_i32 = ctypes.c_int32
_int = ctypes.c_int
_p = ctypes.c_void_p
_cp = ctypes.c_char_p


class _timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class _lc_error(ctypes.Structure):
    _fields_ = [("code", _int), ("line", _int), ("where", ctypes.c_char * 256),
                ("msg", ctypes.c_char * 256)]


class _lc_leap(ctypes.Structure):
    _fields_ = [("when", _i64), ("tai_utc", _i32), ("dir", _i32)]


class _lc_leaptable_info(ctypes.Structure):
    _fields_ = [("format", _int), ("hash", _int), ("count", ctypes.c_size_t),
                ("updated", _i64), ("expires", _i64),
                ("source", ctypes.c_char * 256)]


class _lc_timeline_info(ctypes.Structure):
    _fields_ = [("source", _int), ("path", ctypes.c_char * 256),
                ("why", ctypes.c_char * 256), ("writer_pid", ctypes.c_long),
                ("writer_alive", _int), ("pretend", _int),
                ("writer_starts", ctypes.c_uint64), ("age_ns", _i64),
                ("last_update_rt", _i64),
                ("table_source", ctypes.c_char * 256), ("table_hash", _int),
                ("table_expires", _i64), ("table_note", ctypes.c_char * 160),
                ("smear", ctypes.c_char * 48), ("host_state", _int),
                ("host_offset_ns", _i64), ("host_steps", ctypes.c_uint64),
                # appended in 0.2 (the C struct grew: the whole of it)
                ("host_leap", _int), ("host_leap_text", ctypes.c_char * 40),
                ("host_detected", _int),
                ("host_detected_text", ctypes.c_char * 40),
                ("host_hold_ns", _i64),
                ("counter", ctypes.c_char * 16)]


def _fn(name, res, *args):
    f = getattr(_lib, name)
    f.restype = res
    f.argtypes = list(args)
    return f


_P = ctypes.POINTER
_strerror = _fn("lc_strerror", _cp, _int)
_error_format = _fn("lc_error_format", _int, _P(_lc_error), _cp, ctypes.c_size_t)
_default = _fn("lc_default", _p)
_gettime = _fn("lc_gettime", _int, _p, _int, _P(_timespec))
_now_ns = _fn("lc_now_ns", _i64, _p, _int)
_timeline_info = _fn("lc_timeline_info", _int, _p, _P(_lc_timeline_info))
_tk_next_leap = _fn("lc_tk_next_leap", _int, _p, _P(_i64), _P(_int))
_tk_table = _fn("lc_tk_table", _p, _p)
_lt_new = _fn("lc_leaptable_new", _p)
_lt_free = _fn("lc_leaptable_free", None, _p)
_lt_load_file = _fn("lc_leaptable_load_file", _int, _p, _cp, _int, _P(_lc_error))
_lt_load_buffer = _fn("lc_leaptable_load_buffer", _int, _p, _cp, _cp,
                      ctypes.c_size_t, _int, _P(_lc_error))
_lt_load_system = _fn("lc_leaptable_load_system", _int, _p, _P(_lc_error))
_lt_info = _fn("lc_leaptable_info", _int, _p, _P(_lc_leaptable_info))
_lt_expired = _fn("lc_leaptable_expired", _int, _p, _i64)
_lt_count = _fn("lc_leaptable_count", ctypes.c_size_t, _p)
_lt_get = _fn("lc_leaptable_get", _int, _p, ctypes.c_size_t, _P(_lc_leap))
_lt_tai_utc = _fn("lc_leaptable_tai_utc", _int, _p, _i64, _P(_i32))
_lt_leap_at = _fn("lc_leaptable_leap_at", _int, _p, _i64)
_lt_next = _fn("lc_leaptable_next", _int, _p, _i64, _P(_lc_leap))
_lt_prev = _fn("lc_leaptable_prev", _int, _p, _i64, _P(_lc_leap))
_utc_check = _fn("lc_utc_check", _int, _p, _P(_timespec))
_tai_from_utc = _fn("lc_tai_from_utc", _int, _p, _P(_timespec), _P(_i64))
_utc_from_tai = _fn("lc_utc_from_tai", _int, _p, _i64, _P(_timespec))
_tai_from_unix = _fn("lc_tai_from_unix", _int, _p, _i64, _P(_i64))
_unix_from_tai = _fn("lc_unix_from_tai", _int, _p, _i64, _P(_i64))
_gps_from_tai = _fn("lc_gps_from_tai", _i64, _i64)
_tai_from_gps = _fn("lc_tai_from_gps", _i64, _i64)
_iso_parse = _fn("lc_iso8601_parse", _int, _cp, _p, _P(_timespec), _P(_lc_error))
_iso_format = _fn("lc_iso8601_format", _int, _P(_timespec), _int, _cp, ctypes.c_size_t)
_iso_format_scale = _fn("lc_iso8601_format_scale", _int, _i64, _int, _cp,
                        ctypes.c_size_t)

version = "0.2.0"

# ---- errors -------------------------------------------------------------


class LeapclockError(Exception):
    """A negative LC_E* code: `code` (int), `name` (lc_strerror's text);
    for bad input also `where` (file or text), `line` and the message."""

    def __init__(self, code, message=None, where="", line=0):
        self.code = code
        self.name = _strerror(code).decode()
        self.where = where
        self.line = line
        super().__init__(message or self.name)


def _check(rc, err=None):
    if rc < 0:
        if err is not None and err.code != 0:
            buf = ctypes.create_string_buffer(1024)
            _error_format(ctypes.byref(err), buf, len(buf))
            raise LeapclockError(rc, buf.value.decode("utf-8", "replace"),
                                 err.where.decode("utf-8", "replace"), err.line)
        raise LeapclockError(rc)
    return rc


# ---- clocks -------------------------------------------------------------


class Clock(enum.IntEnum):
    """leapclock's clock ids (enum lc_clock_id)."""
    MONOTONIC_RAW = 0
    MONOTONIC = 1
    BOOTTIME = 2
    TAI = 3
    REALTIME = 4
    UTC = 5
    UTC_SLS = 6


MONOTONIC_RAW, MONOTONIC, BOOTTIME, TAI, REALTIME, UTC, UTC_SLS = list(Clock)

_NS = 1000000000


class UTCTime:
    """A UTC instant that keeps the 60th second.

    `sec` is POSIX seconds, `nsec` nanoseconds in [0, 2e9): during an
    inserted leap second 23:59:60, `sec` is 23:59:59's value and `nsec` >=
    1e9 (the C library's struct timespec convention for LC_CLOCK_UTC). So
    (sec, nsec) orders readings correctly through a leap, and `leap` says
    whether this is 23:59:60. Immutable, hashable, ordered."""

    __slots__ = ("sec", "nsec")

    def __init__(self, sec, nsec=0):
        if not 0 <= nsec < 2 * _NS:
            raise ValueError("nsec %d outside [0, 2e9)" % nsec)
        if nsec >= _NS and (sec + 1) % 86400 != 0:
            raise ValueError("nsec >= 1e9 (23:59:60) on a second other than 23:59:59")
        object.__setattr__(self, "sec", int(sec))
        object.__setattr__(self, "nsec", int(nsec))

    def __setattr__(self, k, v):
        raise AttributeError("UTCTime is immutable")

    def _ts(self):
        return _timespec(self.sec, self.nsec)

    @classmethod
    def _from_ts(cls, ts):
        return cls(ts.tv_sec, ts.tv_nsec)

    @property
    def leap(self):
        """True during an inserted leap second (23:59:60)."""
        return self.nsec >= _NS

    @property
    def second(self):
        """The second of the minute, 0..60."""
        return 60 if self.leap else self.sec % 60

    def fields(self):
        """(year, month, day, hour, minute, second 0..60, nanosecond)."""
        days, s = divmod(self.sec, 86400)
        d = _dt.date(1970, 1, 1) + _dt.timedelta(days=days)
        sec = 60 if self.leap else s % 60
        return (d.year, d.month, d.day, s // 3600, s // 60 % 60, sec,
                self.nsec % _NS)

    def isoformat(self, digits=9):
        """ISO 8601 'YYYY-MM-DDThh:mm:ss[.fff]Z', 23:59:60 as such; `digits`
        fraction digits (0..9, truncated)."""
        buf = ctypes.create_string_buffer(64)
        ts = self._ts()
        _check(_iso_format(ctypes.byref(ts), digits, buf, len(buf)))
        return buf.value.decode()

    __str__ = isoformat

    def __repr__(self):
        return "UTCTime(%d, %d)  # %s" % (self.sec, self.nsec, self.isoformat())

    def to_datetime(self, leap="raise"):
        """An aware datetime (timezone.utc, microseconds truncated).
        datetime has no second 60: for 23:59:60, leap="raise" (default)
        raises ValueError, "clamp" gives 23:59:59.999999, "next" gives the
        following 00:00:00. Check `leap` to know which you have."""
        if self.leap:
            if leap == "clamp":
                return (_dt.datetime.fromtimestamp(self.sec, _dt.timezone.utc)
                        .replace(microsecond=999999))
            if leap == "next":
                return _dt.datetime.fromtimestamp(self.sec + 1, _dt.timezone.utc)
            raise ValueError("%s is a leap second (23:59:60), which datetime "
                             "cannot hold: pass leap='clamp' or 'next'"
                             % self.isoformat())
        base = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
        return base + _dt.timedelta(seconds=self.sec, microseconds=self.nsec // 1000)

    @classmethod
    def from_datetime(cls, d):
        """From a datetime (naive: taken as UTC). Never a leap second."""
        if d.tzinfo is None:
            d = d.replace(tzinfo=_dt.timezone.utc)
        delta = d - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
        sec = delta.days * 86400 + delta.seconds
        return cls(sec, delta.microseconds * 1000)

    @classmethod
    def parse(cls, text, table=None):
        """ISO 8601 / RFC 3339 text, second 60 accepted where `table` (a
        LeapTable; None: the built-in table) has an inserted leap.
        LeapclockError (LC_EPARSE, LC_ENOTLEAP) naming the column."""
        t = table if table is not None else LeapTable()
        ts = _timespec()
        err = _lc_error()
        _check(_iso_parse(text.encode(), t._h, ctypes.byref(ts), ctypes.byref(err)), err)
        return cls._from_ts(ts)

    def _key(self):
        return (self.sec, self.nsec)

    def __eq__(self, o):
        return isinstance(o, UTCTime) and self._key() == o._key()

    def __lt__(self, o):
        return self._key() < o._key()

    def __le__(self, o):
        return self._key() <= o._key()

    def __gt__(self, o):
        return self._key() > o._key()

    def __ge__(self, o):
        return self._key() >= o._key()

    def __hash__(self):
        return hash(self._key())


def gettime(clock=UTC):
    """(tv_sec, tv_nsec) of a clock of lc_default(): for UTC (and UTC_SLS
    while it shows 23:59:60) tv_nsec is in [1e9, 2e9) during a leap."""
    ts = _timespec()
    _check(_gettime(_tk(), int(clock), ctypes.byref(ts)))
    return (ts.tv_sec, ts.tv_nsec)


def now(clock=UTC):
    """The time on a UTC-like clock (UTC, UTC_SLS, REALTIME) as a UTCTime;
    for the others (TAI, MONOTONIC...) as int ns, as now_ns()."""
    clock = Clock(clock)
    if clock in (UTC, UTC_SLS, REALTIME):
        return UTCTime(*gettime(clock))
    return now_ns(clock)


def now_ns(clock=TAI):
    """A clock's reading in int ns (for UTC in a leap: sec*1e9 + nsec, which
    repeats after it: use now() there)."""
    return _now_ns(_tk(), int(Clock(clock)))


_tk_handle = None


def _tk():
    global _tk_handle
    if _tk_handle is None:
        _tk_handle = _default()
        if not _tk_handle:
            raise LeapclockError(-12, "lc_default() failed: no counter works")
    return _tk_handle


def next_leap():
    """(when, dir) of the leap lc_default() has armed: `when` POSIX seconds
    of the 00:00:00 after it, dir +1 inserted / -1 deleted; None if none."""
    when, d = _i64(), _int()
    rc = _tk_next_leap(_tk(), ctypes.byref(when), ctypes.byref(d))
    if rc == -2:
        return None
    _check(rc)
    return (when.value, d.value)


TimelineInfo = namedtuple("TimelineInfo", [f[0] for f in _lc_timeline_info._fields_])
TimelineInfo.__doc__ = """lc_timeline_info() of lc_default(): source (0 own,
1 page, 2 in-process, 3 fallback), path, why, writer_pid, writer_alive,
pretend, writer_starts, age_ns, last_update_rt, table_source, table_hash,
table_expires, table_note, smear, host_state, host_offset_ns, host_steps,
host_leap, host_leap_text, host_detected, host_detected_text, host_hold_ns,
counter ("system": host CLOCK_MONOTONIC, "raw": CLOCK_MONOTONIC_RAW, "tsc")."""
TimelineInfo.SOURCES = ("own", "page", "in-process", "fallback")


def timeline_info():
    """The timeline that this process reads (the host's page, or in
    process, and why) and the writer's state, as a TimelineInfo."""
    i = _lc_timeline_info()
    _check(_timeline_info(_tk(), ctypes.byref(i)))
    vals = []
    for name, _ in _lc_timeline_info._fields_:
        v = getattr(i, name)
        vals.append(v.decode("utf-8", "replace") if isinstance(v, bytes) else v)
    return TimelineInfo(*vals)


# ---- the leap table -----------------------------------------------------

Leap = namedtuple("Leap", "when tai_utc dir")
Leap.__doc__ = """A table row: from `when` (POSIX seconds of the 00:00:00 UTC
after the leap) on, TAI-UTC is `tai_utc` s; dir +1 inserted, -1 deleted, 0
the 1972 start."""
TableInfo = namedtuple("TableInfo", "format hash count updated expires source")
_UNKNOWN = -(1 << 63)


def _sec(at):
    if isinstance(at, UTCTime):
        return at.sec
    if isinstance(at, _dt.datetime):
        return UTCTime.from_datetime(at).sec
    return int(at)


class LeapTable:
    """A leap-second table: LeapTable() is the built-in one,
    LeapTable.load(path) an IERS leap-seconds.list or tzdata leapseconds
    file (hash checked), LeapTable.system() the system's
    ($LEAPCLOCK_LEAPFILE, else the freshest of the system's files and the
    built-in one). Instants are UTCTime, datetime or POSIX seconds."""

    def __init__(self):
        self._h = _lt_new()
        if not self._h:
            raise MemoryError("lc_leaptable_new")

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h and _lt_free is not None:
            _lt_free(h)

    @classmethod
    def load(cls, path, format=0):
        """From a file; LeapclockError naming the file, line and field."""
        t = cls()
        err = _lc_error()
        _check(_lt_load_file(t._h, os.fsencode(path), format, ctypes.byref(err)), err)
        return t

    @classmethod
    def from_text(cls, text, name="<text>", format=0):
        t = cls()
        err = _lc_error()
        data = text.encode() if isinstance(text, str) else bytes(text)
        _check(_lt_load_buffer(t._h, name.encode(), data, len(data), format,
                               ctypes.byref(err)), err)
        return t

    @classmethod
    def system(cls):
        t = cls()
        err = _lc_error()
        _check(_lt_load_system(t._h, ctypes.byref(err)), err)
        return t

    def info(self):
        i = _lc_leaptable_info()
        _check(_lt_info(self._h, ctypes.byref(i)))
        return TableInfo(i.format, i.hash, i.count,
                         None if i.updated == _UNKNOWN else i.updated,
                         None if i.expires == _UNKNOWN else i.expires,
                         i.source.decode("utf-8", "replace"))

    @property
    def expires(self):
        """POSIX seconds of the table's expiry, None if unknown."""
        return self.info().expires

    def expired(self, at):
        return bool(_lt_expired(self._h, _sec(at)))

    def __len__(self):
        return _lt_count(self._h)

    def __iter__(self):
        return iter(self.entries())

    def entries(self):
        """The rows (Leap), the 1972 start included."""
        out = []
        row = _lc_leap()
        for i in range(len(self)):
            _check(_lt_get(self._h, i, ctypes.byref(row)))
            out.append(Leap(row.when, row.tai_utc, row.dir))
        return out

    def tai_utc(self, at):
        """TAI-UTC in seconds at a UTC instant (the new offset during a
        23:59:60, as Linux); LeapclockError LC_EBEFORE1972 before 1972."""
        v = _i32()
        _check(_lt_tai_utc(self._h, _sec(at), ctypes.byref(v)))
        return v.value

    def leap_at(self, at):
        """+1 if `at`'s POSIX second is a 23:59:59 followed by 23:59:60, -1
        if it is a deleted 23:59:59, else 0."""
        return _lt_leap_at(self._h, _sec(at))

    def next_leap(self, after):
        """The first leap (Leap, dir != 0) with when > after, or None."""
        row = _lc_leap()
        rc = _lt_next(self._h, _sec(after), ctypes.byref(row))
        return None if rc == -2 else (_check(rc), Leap(row.when, row.tai_utc, row.dir))[1]

    def prev_leap(self, at):
        row = _lc_leap()
        rc = _lt_prev(self._h, _sec(at), ctypes.byref(row))
        return None if rc == -2 else (_check(rc), Leap(row.when, row.tai_utc, row.dir))[1]

    def check(self, t):
        """LeapclockError LC_ENOTLEAP if UTCTime `t` is a 23:59:60 the
        table does not insert, or a deleted 23:59:59."""
        ts = t._ts()
        _check(_utc_check(self._h, ctypes.byref(ts)))

    def parse(self, text):
        return UTCTime.parse(text, self)


_builtin = None


def _table(table):
    global _builtin
    if table is not None:
        return table
    if _builtin is None:
        _builtin = LeapTable.system()
    return _builtin


# ---- conversions (table None: the system's table, loaded once) ----------


def tai_from_utc(t, table=None):
    """TAI ns of a UTCTime (23:59:60 included)."""
    if isinstance(t, _dt.datetime):
        t = UTCTime.from_datetime(t)
    out = _i64()
    ts = t._ts()
    _check(_tai_from_utc(_table(table)._h, ctypes.byref(ts), ctypes.byref(out)))
    return out.value


def utc_from_tai(tai_ns, table=None):
    """The UTCTime of TAI ns (a 23:59:60 where the table inserts one)."""
    ts = _timespec()
    _check(_utc_from_tai(_table(table)._h, int(tai_ns), ctypes.byref(ts)))
    return UTCTime._from_ts(ts)


def tai_from_unix(unix_ns, table=None):
    out = _i64()
    _check(_tai_from_unix(_table(table)._h, int(unix_ns), ctypes.byref(out)))
    return out.value


def unix_from_tai(tai_ns, table=None):
    out = _i64()
    _check(_unix_from_tai(_table(table)._h, int(tai_ns), ctypes.byref(out)))
    return out.value


def gps_from_tai(tai_ns):
    return _gps_from_tai(int(tai_ns))


def tai_from_gps(gps_ns):
    return _tai_from_gps(int(gps_ns))


def format_tai(tai_ns, digits=9):
    """TAI ns as 'YYYY-MM-DDThh:mm:ss.fff TAI' (a uniform scale: no 60)."""
    buf = ctypes.create_string_buffer(64)
    _check(_iso_format_scale(int(tai_ns), digits, buf, len(buf)))
    return buf.value.decode() + " TAI"

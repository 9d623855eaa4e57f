"""Tests of the leapclock Python module (python/leapclock) over
libleapclock.so.1: the build tree's (CTest: LEAPCLOCK_LIBRARY and
PYTHONPATH set by tests/python_module.sh) or the installed one
(tools/ci-deb-test). Hermetic: LEAPCLOCK_TIMELINE names a page in a temp
dir that does not exist, LEAPCLOCK_LEAPFILE a file of tests/data
(LEAPCLOCK_TEST_DATA: that folder)."""

import datetime as dt
import os
import sys
import tempfile
import unittest

DATA = os.environ.get("LEAPCLOCK_TEST_DATA") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data")
LEAPFILE = os.path.join(DATA, "leap-seconds.list.tzdata2026f")
_tmp = tempfile.mkdtemp(prefix="lc-python.")
PAGE = os.path.join(_tmp, "timeline")
# before the library's first lc_default()
os.environ["LEAPCLOCK_TIMELINE"] = PAGE
os.environ["LEAPCLOCK_LEAPFILE"] = LEAPFILE
os.environ.pop("LEAPCLOCK_SMEAR", None)

import leapclock as lc  # noqa: E402

NS = 1000000000
LEAP2016 = 1483228800  # 2017-01-01T00:00:00Z, after the last inserted second


class Table(unittest.TestCase):
    def setUp(self):
        self.t = lc.LeapTable.load(LEAPFILE)

    def test_entries(self):
        e = self.t.entries()
        self.assertEqual(len(e), len(self.t))
        self.assertEqual(e[0], lc.Leap(63072000, 10, 0))  # 1972-01-01, 10 s
        self.assertEqual(e[-1], lc.Leap(LEAP2016, 37, 1))
        self.assertEqual(len(e), 28)

    def test_tai_utc(self):
        self.assertEqual(self.t.tai_utc(LEAP2016 - 2), 36)
        self.assertEqual(self.t.tai_utc(LEAP2016), 37)
        self.assertEqual(self.t.tai_utc(dt.datetime(2000, 1, 1)), 32)
        with self.assertRaises(lc.LeapclockError) as c:
            self.t.tai_utc(0)
        self.assertEqual(c.exception.code, -4004)  # LC_EBEFORE1972

    def test_next_prev_leap(self):
        self.assertEqual(self.t.next_leap(LEAP2016 - 86400 * 100), lc.Leap(LEAP2016, 37, 1))
        self.assertIsNone(self.t.next_leap(LEAP2016))
        self.assertEqual(self.t.prev_leap(LEAP2016 + 5).when, LEAP2016)
        self.assertEqual(self.t.leap_at(LEAP2016 - 1), 1)
        self.assertEqual(self.t.leap_at(LEAP2016 - 2), 0)

    def test_expiry(self):
        i = self.t.info()
        self.assertTrue(i.source.endswith("leap-seconds.list.tzdata2026f"), i.source)
        self.assertIsNotNone(i.expires)
        self.assertEqual(self.t.expires, i.expires)
        self.assertFalse(self.t.expired(i.expires - 1))
        self.assertTrue(self.t.expired(i.expires + 1))

    def test_bad_file_names_file_and_line(self):
        bad = os.path.join(_tmp, "bad.list")
        with open(bad, "w") as f:
            f.write("2272060800\t10\t# 1 Jan 1972\nxyz\t11\n")
        with self.assertRaises(lc.LeapclockError) as c:
            lc.LeapTable.load(bad)
        self.assertIn("bad.list", str(c.exception))
        self.assertEqual(c.exception.line, 2, str(c.exception))


class UTCTimeTest(unittest.TestCase):
    def setUp(self):
        self.t = lc.LeapTable.load(LEAPFILE)

    def test_leap_second_kept(self):
        u = lc.UTCTime.parse("2016-12-31T23:59:60.5Z", self.t)
        self.assertTrue(u.leap)
        self.assertEqual((u.sec, u.nsec), (LEAP2016 - 1, NS + NS // 2))
        self.assertEqual(u.second, 60)
        self.assertEqual(u.fields(), (2016, 12, 31, 23, 59, 60, NS // 2))
        self.assertEqual(u.isoformat(1), "2016-12-31T23:59:60.5Z")
        self.assertEqual(str(lc.UTCTime(LEAP2016 - 1, NS)), "2016-12-31T23:59:60.000000000Z")

    def test_order_through_the_leap(self):
        a = lc.UTCTime.parse("2016-12-31T23:59:59.9Z", self.t)
        b = lc.UTCTime.parse("2016-12-31T23:59:60Z", self.t)
        c = lc.UTCTime.parse("2017-01-01T00:00:00Z", self.t)
        self.assertLess(a, b)
        self.assertLess(b, c)
        self.assertEqual(sorted([c, b, a]), [a, b, c])

    def test_not_a_leap(self):
        with self.assertRaises(lc.LeapclockError) as c:
            lc.UTCTime.parse("2016-12-30T23:59:60Z", self.t)
        self.assertEqual(c.exception.code, -4005)  # LC_ENOTLEAP
        with self.assertRaises(lc.LeapclockError) as c:
            lc.UTCTime.parse("2016-13-01T00:00:00Z", self.t)
        self.assertIn("month", str(c.exception))
        with self.assertRaises(ValueError):
            lc.UTCTime(LEAP2016 - 2, NS)  # 23:59:58 cannot carry nsec >= 1e9

    def test_datetime(self):
        u = lc.UTCTime.parse("2016-12-31T23:59:60.25Z", self.t)
        with self.assertRaises(ValueError):
            u.to_datetime()
        self.assertEqual(u.to_datetime(leap="clamp"),
                         dt.datetime(2016, 12, 31, 23, 59, 59, 999999, dt.timezone.utc))
        self.assertEqual(u.to_datetime(leap="next"),
                         dt.datetime(2017, 1, 1, tzinfo=dt.timezone.utc))
        d = dt.datetime(2012, 6, 30, 12, 0, 1, 250000, dt.timezone.utc)
        v = lc.UTCTime.from_datetime(d)
        self.assertFalse(v.leap)
        self.assertEqual(v.to_datetime(), d)
        self.assertEqual(v.isoformat(6), "2012-06-30T12:00:01.250000Z")


class Conversions(unittest.TestCase):
    def setUp(self):
        self.t = lc.LeapTable.load(LEAPFILE)

    def test_tai_through_the_leap(self):
        u = lc.UTCTime.parse("2016-12-31T23:59:60.5Z", self.t)
        tai = lc.tai_from_utc(u, self.t)
        self.assertEqual(tai, (LEAP2016 + 36) * NS + NS // 2)
        self.assertEqual(lc.utc_from_tai(tai, self.t), u)
        self.assertEqual(lc.format_tai(tai, 1), "2017-01-01T00:00:36.5 TAI")
        self.assertEqual(lc.tai_from_utc(lc.UTCTime(LEAP2016), self.t), (LEAP2016 + 37) * NS)
        # POSIX maps 23:59:60 onto the repeated 23:59:59
        self.assertEqual(lc.unix_from_tai(tai, self.t), (LEAP2016 - 1) * NS + NS // 2)
        self.assertEqual(lc.tai_from_unix(LEAP2016 * NS, self.t), (LEAP2016 + 37) * NS)
        self.assertEqual(lc.tai_from_gps(lc.gps_from_tai(tai)), tai)
        self.assertEqual(lc.gps_from_tai(315964819 * NS), 0)

    def test_default_table_is_leapfile(self):
        # table=None: the system's, which is LEAPCLOCK_LEAPFILE here
        self.assertEqual(lc.tai_from_unix(LEAP2016 * NS), (LEAP2016 + 37) * NS)


class Clocks(unittest.TestCase):
    def test_every_clock(self):
        for c in lc.Clock:
            v = lc.now(c)
            if c in (lc.UTC, lc.UTC_SLS, lc.REALTIME):
                self.assertIsInstance(v, lc.UTCTime, c.name)
            else:
                self.assertIsInstance(v, int, c.name)
        u, r = lc.now(lc.UTC), lc.now(lc.REALTIME)
        self.assertLess(abs((r.sec - u.sec) * NS + r.nsec - u.nsec), NS // 10)
        s = lc.now(lc.UTC_SLS)
        self.assertLess(abs((s.sec - u.sec) * NS + s.nsec - u.nsec), 2 * NS)
        tai, rt = lc.now_ns(lc.TAI), lc.now_ns(lc.REALTIME)
        self.assertLess(abs(tai - rt - 37 * NS), NS // 10, "TAI - REALTIME = TAI-UTC (37 s)")
        m1 = lc.now_ns(lc.MONOTONIC)
        m2 = lc.now_ns(lc.MONOTONIC)
        self.assertLessEqual(m1, m2)
        self.assertEqual(lc.gettime(lc.UTC)[0] // 100, u.sec // 100)
        self.assertTrue(abs(lc.now().to_datetime(leap="clamp") - dt.datetime.now(dt.timezone.utc))
                        < dt.timedelta(seconds=2))

    def test_next_leap(self):
        n = lc.next_leap()  # none after 2017 in this table
        self.assertIsNone(n)

    def test_timeline_status(self):
        i = lc.timeline_info()
        self.assertEqual(lc.TimelineInfo.SOURCES[i.source], "in-process")
        self.assertEqual(i.path, PAGE)
        self.assertTrue(i.why, "says why not the page")
        self.assertFalse(os.path.exists(PAGE), "a reader never creates the page")


if __name__ == "__main__":
    print("leapclock module %s, library %s" % (lc.__file__, lc.library), file=sys.stderr)
    unittest.main(verbosity=2)

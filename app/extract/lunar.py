"""Holidays of the Chinese lunar calendar on the Gregorian calendar: a table for 2000-2040 (the years
conversations are dated in), not a lunar calendar. Generated with lunardate 0.3.0 (its
`LunarDate(year, month, day).to_solar_date()`); spot-checked against the official dates (2023:
春节 01-22, 端午节 06-22, 中秋节 09-29; 2024: 02-10, 06-10, 09-17; 2025: 01-29, 05-31, 10-06).
A year outside the table raises ValueError, which leaves the expression unresolved."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

FIRST_YEAR, LAST_YEAR = 2000, 2040

# year: (春节 1/1, 端午节 5/5, 七夕 7/7, 中秋节 8/15, 重阳节 9/9) of the lunar calendar, as MMDD
# fmt: off
_DAYS: dict[int, tuple[str, str, str, str, str]] = {
    2000: ('0205', '0606', '0806', '0912', '1006'),
    2001: ('0124', '0625', '0825', '1001', '1025'),
    2002: ('0212', '0615', '0815', '0921', '1014'),
    2003: ('0201', '0604', '0804', '0911', '1004'),
    2004: ('0122', '0622', '0822', '0928', '1022'),
    2005: ('0209', '0611', '0811', '0918', '1011'),
    2006: ('0129', '0531', '0731', '1006', '1030'),
    2007: ('0218', '0619', '0819', '0925', '1019'),
    2008: ('0207', '0608', '0807', '0914', '1007'),
    2009: ('0126', '0528', '0826', '1003', '1026'),
    2010: ('0214', '0616', '0816', '0922', '1016'),
    2011: ('0203', '0606', '0806', '0912', '1005'),
    2012: ('0123', '0623', '0823', '0930', '1023'),
    2013: ('0210', '0612', '0813', '0919', '1013'),
    2014: ('0131', '0602', '0802', '0908', '1002'),
    2015: ('0219', '0620', '0820', '0927', '1021'),
    2016: ('0208', '0609', '0809', '0915', '1009'),
    2017: ('0128', '0530', '0828', '1004', '1028'),
    2018: ('0216', '0618', '0817', '0924', '1017'),
    2019: ('0205', '0607', '0807', '0913', '1007'),
    2020: ('0125', '0625', '0825', '1001', '1025'),
    2021: ('0212', '0614', '0814', '0921', '1014'),
    2022: ('0201', '0603', '0804', '0910', '1004'),
    2023: ('0122', '0622', '0822', '0929', '1023'),
    2024: ('0210', '0610', '0810', '0917', '1011'),
    2025: ('0129', '0531', '0829', '1006', '1029'),
    2026: ('0217', '0619', '0819', '0925', '1018'),
    2027: ('0206', '0609', '0808', '0915', '1008'),
    2028: ('0126', '0528', '0826', '1003', '1026'),
    2029: ('0213', '0616', '0816', '0922', '1016'),
    2030: ('0203', '0605', '0805', '0912', '1005'),
    2031: ('0123', '0624', '0824', '1001', '1024'),
    2032: ('0211', '0612', '0812', '0919', '1012'),
    2033: ('0131', '0601', '0801', '0908', '1001'),
    2034: ('0219', '0620', '0820', '0927', '1020'),
    2035: ('0208', '0610', '0810', '0916', '1009'),
    2036: ('0128', '0530', '0828', '1004', '1027'),
    2037: ('0215', '0618', '0817', '0924', '1017'),
    2038: ('0204', '0607', '0807', '0913', '1007'),
    2039: ('0124', '0527', '0826', '1002', '1026'),
    2040: ('0212', '0614', '0814', '0920', '1014'),
}
# fmt: on
_SPRING, _DRAGON_BOAT, _QIXI, _MID_AUTUMN, _DOUBLE_NINTH = range(5)


def _lunar(index: int, offset: int = 0) -> Callable[[int], date]:
    """The holiday's date in a Gregorian year (`offset` days from the tabled one)."""

    def day_in(year: int) -> date:
        if year not in _DAYS:
            raise ValueError(f"no lunar holidays tabled for {year} ({FIRST_YEAR}-{LAST_YEAR})")
        mmdd = _DAYS[year][index]
        return date(year, int(mmdd[:2]), int(mmdd[2:])) + timedelta(days=offset)

    return day_in


# The day before the Spring Festival is New Year's Eve, and the fifteenth of its month the Lantern
# Festival: 14 days after it, as every lunar month has at least 29 days.
LUNAR_HOLIDAYS: dict[str, Callable[[int], date]] = {
    "春节": _lunar(_SPRING),
    "大年初一": _lunar(_SPRING),
    "除夕": _lunar(_SPRING, -1),
    "大年三十": _lunar(_SPRING, -1),
    "元宵节": _lunar(_SPRING, 14),
    "端午节": _lunar(_DRAGON_BOAT),
    "七夕节": _lunar(_QIXI),
    "七夕": _lunar(_QIXI),
    "中秋节": _lunar(_MID_AUTUMN),
    "中秋": _lunar(_MID_AUTUMN),
    "端午": _lunar(_DRAGON_BOAT),
    "重阳节": _lunar(_DOUBLE_NINTH),
}

/*
 * The export's whole page in one call, for columns of fixed size only (double_text.cc's printPage;
 * tools/expimp-page-printer.ts is the caller and keeps its own loop for STRING columns and as the
 * fallback). The page is `count` rows in the row codec's 'wire' form (lib/encoding/row-codec.ts):
 *
 *   row:  | NULL bitmap, (columns + 7) / 8 bytes, bit i%8 of byte i/8 set = column i NULL |
 *         | each non-NULL cell in column order, little-endian, no padding |
 *   cell: BOOL u8 (0 or 1), BYTE i8, SHORT i16, INTEGER i32, LONG i64, FLOAT f32, DOUBLE f64,
 *         TIMESTAMP(3) u64 ms since 1970 (at most TIMESTAMP_MS_MAX, 9999-12-31T23:59:59.999)
 *
 * Each row becomes one line as the page printer prints it: cells in double quotes, separated by
 * commas, a NULL cell empty, LF at the end; numbers as JavaScript's String(x) (FLOAT widened to a
 * double first, as DataView.getFloat32 does), -0 as "-0.0", BOOL as "true" / "false", a timestamp
 * as "yyyy-MM-ddTHH:mm:ss.SSS+0000" (UTC). A page that is not exactly that (a NULL in a NOT NULL
 * column, a BOOL byte above 1, a timestamp past the maximum, bytes short or left over) prints
 * nothing and answers PAGE_MALFORMED: the caller then prints it its own way, which names the row
 * and the problem.
 */
#ifndef DOUBLE_TEXT_PAGE_H
#define DOUBLE_TEXT_PAGE_H

#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include "double_text_shortest.h"

/** Column kinds, numbered as tools/expimp-page-printer.ts's `Kind` (STRING is never passed here). */
enum class PageKind : uint8_t { BOOL, BYTE, SHORT, INTEGER, LONG, FLOAT, DOUBLE, TIMESTAMP_MS };
constexpr uint8_t PAGE_KIND_COUNT = 8;
/** Bytes one cell prints at most, comma included: ",\"-1.7976931348623157e+308\"" is 27. */
constexpr size_t PAGE_CELL_BYTES_MAX = 40;
constexpr uint64_t PAGE_TIMESTAMP_MS_MAX = 253402300799999ULL;
constexpr long PAGE_MALFORMED = -1;

namespace page_detail {

constexpr uint64_t MS_PER_DAY = 86400000;

/**
 * (year, month, day) of `days` since 1970-01-01, days >= 0 (proleptic Gregorian; H. Hinnant's
 * civil_from_days). The export's dates and the PostgreSQL port's timestamps both take it.
 */
inline void civil_from_days(uint64_t days, int *year, int *month, int *day) {
  const int64_t z = static_cast<int64_t>(days) + 719468;
  const int64_t era = z / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *year = static_cast<int>(yoe + era * 400 + (*month <= 2 ? 1 : 0));
}

/** "yyyy-MM-dd" of `days` since 1970-01-01. */
inline char *write_day(char *out, uint64_t days) {
  int year, month, day;
  civil_from_days(days, &year, &month, &day);
  out[0] = static_cast<char>('0' + year / 1000);
  out[1] = static_cast<char>('0' + year / 100 % 10);
  out[2] = static_cast<char>('0' + year / 10 % 10);
  out[3] = static_cast<char>('0' + year % 10);
  out[4] = '-';
  out[5] = static_cast<char>('0' + month / 10);
  out[6] = static_cast<char>('0' + month % 10);
  out[7] = '-';
  out[8] = static_cast<char>('0' + day / 10);
  out[9] = static_cast<char>('0' + day % 10);
  return out + 10;
}

inline char *two_digits(char *out, uint32_t value) {
  out[0] = static_cast<char>('0' + value / 10);
  out[1] = static_cast<char>('0' + value % 10);
  return out + 2;
}

/** The decimal text of `value`, as String(value) of an integer (BigInt's for LONG). */
inline char *write_integer(char *out, int64_t value) {
  uint64_t magnitude = static_cast<uint64_t>(value);
  if (value < 0) {
    *out++ = '-';
    magnitude = 0 - magnitude;
  }
  if (magnitude == 0) {
    *out++ = '0';
    return out;
  }
  return out + write_digits(out, magnitude);
}

template <typename T>
inline T read_le(const uint8_t *at) {
  T value;
  std::memcpy(&value, at, sizeof(T));  // little-endian hosts only (x86-64, arm64), as the node
  return value;
}

}  // namespace page_detail

/**
 * Prints the page at `bytes` (`size` bytes, `count` rows of `column_count` columns of `kinds`) to
 * `out` (`out_size` bytes, at least count × (column_count × PAGE_CELL_BYTES_MAX + 1)); returns the
 * bytes written, or PAGE_MALFORMED. `write_double` writes one DOUBLE cell, quotes included.
 */
template <typename WriteDouble>
long print_page(const uint8_t *bytes, size_t size, size_t count, const uint8_t *kinds,
                const uint8_t *not_null, size_t column_count, char *out, size_t out_size,
                WriteDouble write_double) {
  using namespace page_detail;
  if (out_size < count * (column_count * PAGE_CELL_BYTES_MAX + 1)) return PAGE_MALFORMED;
  const size_t bitmap_bytes = (column_count + 7) / 8;
  const uint8_t *at = bytes;
  const uint8_t *end = bytes + size;
  char *const start = out;
  uint64_t day_last = UINT64_MAX;
  char day_text[10];
  for (size_t row = 0; row < count; row++) {
    if (static_cast<size_t>(end - at) < bitmap_bytes) return PAGE_MALFORMED;
    const uint8_t *bitmap = at;
    at += bitmap_bytes;
    for (size_t i = 0; i < column_count; i++) {
      if (i > 0) *out++ = ',';
      if ((bitmap[i >> 3] & (1u << (i & 7))) != 0) {
        if (not_null[i] != 0) return PAGE_MALFORMED;
        continue;
      }
      const PageKind kind = static_cast<PageKind>(kinds[i]);
      const size_t cell_bytes = kind == PageKind::BOOL || kind == PageKind::BYTE ? 1
          : kind == PageKind::SHORT ? 2 : kind == PageKind::INTEGER || kind == PageKind::FLOAT ? 4 : 8;
      if (static_cast<size_t>(end - at) < cell_bytes) return PAGE_MALFORMED;
      switch (kind) {
        case PageKind::DOUBLE:
          out = write_double(out, read_le<double>(at));
          break;
        case PageKind::FLOAT:
          out = write_double(out, static_cast<double>(read_le<float>(at)));
          break;
        case PageKind::TIMESTAMP_MS: {
          const uint64_t ms = read_le<uint64_t>(at);
          if (ms > PAGE_TIMESTAMP_MS_MAX) return PAGE_MALFORMED;
          const uint64_t day = ms / MS_PER_DAY;
          if (day != day_last) {
            write_day(day_text, day);
            day_last = day;
          }
          uint32_t rest = static_cast<uint32_t>(ms - day * MS_PER_DAY);
          const uint32_t milli = rest % 1000;
          rest /= 1000;
          *out++ = '"';
          std::memcpy(out, day_text, 10);
          out += 10;
          *out++ = 'T';
          out = two_digits(out, rest / 3600);
          *out++ = ':';
          out = two_digits(out, rest / 60 % 60);
          *out++ = ':';
          out = two_digits(out, rest % 60);
          *out++ = '.';
          *out++ = static_cast<char>('0' + milli / 100);
          out = two_digits(out, milli % 100);
          std::memcpy(out, "+0000\"", 6);
          out += 6;
          break;
        }
        case PageKind::BOOL:
          if (*at > 1) return PAGE_MALFORMED;
          std::memcpy(out, *at == 1 ? "\"true\"" : "\"false\"", *at == 1 ? 6 : 7);
          out += *at == 1 ? 6 : 7;
          break;
        default: {
          const int64_t value = kind == PageKind::BYTE ? read_le<int8_t>(at)
              : kind == PageKind::SHORT ? read_le<int16_t>(at)
              : kind == PageKind::INTEGER ? read_le<int32_t>(at) : read_le<int64_t>(at);
          *out++ = '"';
          out = write_integer(out, value);
          *out++ = '"';
          break;
        }
      }
      at += cell_bytes;
    }
    *out++ = '\n';
  }
  if (at != end) return PAGE_MALFORMED;
  return static_cast<long>(out - start);
}

#endif

/*
 * double_text.node: the export's text of a page of doubles, made in one call (lib/io/double-text.ts
 * loads it; tools/expimp-page-printer.ts is its caller). JavaScript's String(x) takes a slow bignum
 * path for many 17-digit doubles, and the TSBS day has 8.64 M of them; double_text_shortest.h gives
 * the same shortest round-trip digits (Schubfach, 26 ns a value against std::to_chars's 37 ns), and
 * this file lays them out as Number.prototype.toString does (ECMA-262 Number::toString):
 *   k digits d1..dk, decimal point after n of them (x = 0.d1..dk × 10^n)
 *   k <= n <= 21      digits, then n - k zeros                     123000
 *   0 < n <= 21       first n digits, '.', the rest                 1.25
 *   -6 < n <= 0       "0.", -n zeros, digits                        0.000125
 *   otherwise         d1, '.' and the rest if k > 1, 'e', sign, n-1 1.25e+21, 5e-324
 * and as the export writes a cell: in double quotes, -0 as "-0.0", NaN, Infinity, -Infinity.
 * Or as the web API writes a JSON number (lib/webapi/codec/value-encode.ts): finite values bare,
 * -0 as -0, and "NaN", "Infinity", "-Infinity" in double quotes.
 *
 *   spliceDoubles(text, textBytes, at, values, count) -> Buffer
 *     text: Uint8Array, the page printed without its DOUBLE and FLOAT cells; textBytes of it used.
 *     at: Uint32Array, values: Float64Array: the k-th cell (k < count) is values[k], to be put at
 *       byte at[k] of text (non-decreasing, at most textBytes).
 *     Returns a new Buffer: text with each quoted value inserted at its place. Bad arguments throw
 *     a TypeError or RangeError and change nothing.
 *   spliceJsonDoubles(text, textBytes, at, values, count) -> Buffer
 *     The same, each value as the web API's JSON number.
 *   printPage(bytes, count, kinds, notNull, out) -> number
 *     A whole page of fixed-size columns at once (double_text_page.h: its format and the text):
 *     bytes: Uint8Array, `count` rows in the row codec's 'wire' form; kinds, notNull: Uint8Array,
 *     a byte per column (tools/expimp-page-printer.ts's Kind, 1 = NOT NULL); out: Uint8Array of
 *     at least count × (columns × 40 + 1) bytes, reused from page to page by the caller. Returns
 *     the bytes written to out, or -1 for a page not as its format says (the caller prints it its
 *     own way for the error). No new buffer a page: a page's text is written once, where it goes.
 *   parseDoubles(text, starts, ends, values, ok, count) -> undefined
 *     The other way, for gs_import (tools/expimp-row-scan.ts): the k-th cell (k < count) is the
 *     text at bytes [starts[k], ends[k]); values[k] gets the double it spells by std::from_chars,
 *     correctly rounded as Number(text) is, and ok[k] 1, when the whole cell is a decimal number
 *     (-?digits[.digits][e[+-]digits], or .digits) whose value is in range; else ok[k] 0 and the
 *     caller parses that cell its own way (NaN, Infinity, an exponent past the range, a bad cell).
 *   pgTextDataRows(page, count, codes) -> Buffer | string
 *     For the PostgreSQL port (lib/pgwire/pg-data-rows-wire.ts, where the layout is drawn): the
 *     PostgreSQL text-format DataRow messages of `count` rows of a query page in the row codec's
 *     wire form (a NULL bitmap, then each non-NULL value), one after another in a new Buffer. codes:
 *     Uint8Array, each column's type as pg-data-rows-wire.ts numbers them (BOOL 0, BYTE 1, SHORT 2,
 *     INTEGER 3, LONG 4, DOUBLE 5, TIMESTAMP 6 (ms), STRING 7). Page bytes that do not hold the
 *     rows give a string instead, saying what was wrong; bad arguments throw a TypeError.
 */
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#include <node_api.h>
#include "double_text_shortest.h"
#include "double_text_page.h"

namespace {

/** Bytes one cell takes at most: "-1.2345678901234567e-308" with quotes, and room to spare. */
constexpr size_t CELL_BYTES_MAX = 32;

/** How a value is written: the export's quoted cell, or the web API's JSON number. */
enum class Layout { EXPORT_CELL, JSON_NUMBER };

/** Writes the text of `value` at `out` as `layout` says; returns the byte after it. */
char *write_cell(char *out, double value, Layout layout) {
  const bool json = layout == Layout::JSON_NUMBER;
  const bool quoted = !json || !std::isfinite(value);
  if (quoted) *out++ = '"';
  if (std::isnan(value)) {
    std::memcpy(out, "NaN", 3);
    out += 3;
  } else if (std::isinf(value)) {
    if (value < 0) *out++ = '-';
    std::memcpy(out, "Infinity", 8);
    out += 8;
  } else if (value == 0) {
    if (std::signbit(value) && json) {
      std::memcpy(out, "-0", 2);
      out += 2;
    } else if (std::signbit(value)) {
      std::memcpy(out, "-0.0", 4);
      out += 4;
    } else {
      *out++ = '0';
    }
  } else {
    if (value < 0) {
      *out++ = '-';
      value = -value;
    }
    // Shortest round-trip digits, written in place and moved apart for the point: 0.d1..dk × 10^n.
    const Decimal decimal = shortest_decimal(value);
    const int k = write_digits(out, decimal.significand);
    const int n = k + decimal.exponent;
    if (k <= n && n <= 21) {
      out += k;
      for (int i = k; i < n; i++) *out++ = '0';
    } else if (0 < n && n <= 21) {
      std::memmove(out + n + 1, out + n, k - n);
      out[n] = '.';
      out += k + 1;
    } else if (-6 < n && n <= 0) {
      const int lead = 2 - n;  // "0.", then -n zeros
      std::memmove(out + lead, out, k);
      out[0] = '0';
      out[1] = '.';
      for (int i = 2; i < lead; i++) out[i] = '0';
      out += lead + k;
    } else {
      if (k > 1) {
        std::memmove(out + 2, out + 1, k - 1);
        out[1] = '.';
        out += k + 1;
      } else {
        out += 1;
      }
      *out++ = 'e';
      const int shown = n - 1;
      *out++ = shown < 0 ? '-' : '+';
      out = page_detail::write_integer(out, shown < 0 ? -shown : shown);
    }
  }
  if (quoted) *out++ = '"';
  return out;
}

napi_value throw_range(napi_env env, const char *message) {
  napi_throw_range_error(env, nullptr, message);
  return nullptr;
}

/** The bytes of typed array `value` of `type`, or false. */
bool typed_array(napi_env env, napi_value value, napi_typedarray_type type, void **data,
                 size_t *length) {
  bool is_typed = false;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed) return false;
  napi_typedarray_type actual;
  napi_value buffer;
  size_t offset;
  if (napi_get_typedarray_info(env, value, &actual, length, data, &buffer, &offset) != napi_ok) {
    return false;
  }
  return actual == type || (type == napi_uint8_array && actual == napi_uint8_clamped_array);
}

bool count_argument(napi_env env, napi_value value, size_t *count) {
  double number;
  if (napi_get_value_double(env, value, &number) != napi_ok) return false;
  if (!(number >= 0 && number <= 4294967295.0) || number != std::floor(number)) return false;
  *count = static_cast<size_t>(number);
  return true;
}

napi_value splice(napi_env env, napi_callback_info info, Layout layout) {
  size_t argc = 5;
  napi_value argv[5];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  void *text_data, *at_data, *values_data;
  size_t text_length, at_length, values_length, text_bytes, count;
  if (argc < 5 || !typed_array(env, argv[0], napi_uint8_array, &text_data, &text_length) ||
      !count_argument(env, argv[1], &text_bytes) ||
      !typed_array(env, argv[2], napi_uint32_array, &at_data, &at_length) ||
      !typed_array(env, argv[3], napi_float64_array, &values_data, &values_length) ||
      !count_argument(env, argv[4], &count)) {
    napi_throw_type_error(env, nullptr,
                          "expected (Uint8Array, bytes, Uint32Array, Float64Array, count)");
    return nullptr;
  }
  if (text_bytes > text_length) return throw_range(env, "textBytes beyond the text");
  if (count > at_length || count > values_length) return throw_range(env, "count beyond at or values");
  const char *text = static_cast<const char *>(text_data);
  const uint32_t *at = static_cast<const uint32_t *>(at_data);
  const double *values = static_cast<const double *>(values_data);
  uint32_t previous = 0;
  for (size_t i = 0; i < count; i++) {
    if (at[i] < previous || at[i] > text_bytes) return throw_range(env, "at out of order or beyond the text");
    previous = at[i];
  }
  // One scratch per thread (workers each load the addon), grown to the largest page seen.
  thread_local std::vector<char> scratch;
  size_t bound = text_bytes + count * CELL_BYTES_MAX;
  if (scratch.size() < bound) scratch.resize(bound);
  char *out = scratch.data();
  size_t from = 0;
  for (size_t i = 0; i < count; i++) {
    size_t gap = at[i] - from;
    std::memcpy(out, text + from, gap);
    out += gap;
    from = at[i];
    out = write_cell(out, values[i], layout);
  }
  std::memcpy(out, text + from, text_bytes - from);
  out += text_bytes - from;
  napi_value result;
  if (napi_create_buffer_copy(env, out - scratch.data(), scratch.data(), nullptr, &result) != napi_ok) {
    return nullptr;
  }
  return result;
}

napi_value splice_doubles(napi_env env, napi_callback_info info) {
  return splice(env, info, Layout::EXPORT_CELL);
}

napi_value splice_json_doubles(napi_env env, napi_callback_info info) {
  return splice(env, info, Layout::JSON_NUMBER);
}

napi_value print_page_call(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  void *bytes_data, *kinds_data, *not_null_data, *out_data;
  size_t bytes_length, count, kinds_length, not_null_length, out_length;
  if (argc < 5 || !typed_array(env, argv[0], napi_uint8_array, &bytes_data, &bytes_length) ||
      !count_argument(env, argv[1], &count) ||
      !typed_array(env, argv[2], napi_uint8_array, &kinds_data, &kinds_length) ||
      !typed_array(env, argv[3], napi_uint8_array, &not_null_data, &not_null_length) ||
      !typed_array(env, argv[4], napi_uint8_array, &out_data, &out_length)) {
    napi_throw_type_error(env, nullptr, "expected (Uint8Array, count, Uint8Array, Uint8Array, Uint8Array)");
    return nullptr;
  }
  const uint8_t *kinds = static_cast<const uint8_t *>(kinds_data);
  if (kinds_length == 0 || not_null_length != kinds_length) {
    return throw_range(env, "kinds and notNull: a byte per column, at least one column");
  }
  for (size_t i = 0; i < kinds_length; i++) {
    if (kinds[i] >= PAGE_KIND_COUNT) return throw_range(env, "a kind that is not of fixed size");
  }
  if (out_length < count * (kinds_length * PAGE_CELL_BYTES_MAX + 1)) return throw_range(env, "out too small");
  const long written = print_page(
      static_cast<const uint8_t *>(bytes_data), bytes_length, count, kinds,
      static_cast<const uint8_t *>(not_null_data), kinds_length, static_cast<char *>(out_data),
      out_length, [](char *out, double value) { return write_cell(out, value, Layout::EXPORT_CELL); });
  napi_value result;
  napi_create_int64(env, written, &result);
  return result;
}

napi_value parse_doubles(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  void *text_data, *starts_data, *ends_data, *values_data, *ok_data;
  size_t text_length, starts_length, ends_length, values_length, ok_length, count;
  if (argc < 6 || !typed_array(env, argv[0], napi_uint8_array, &text_data, &text_length) ||
      !typed_array(env, argv[1], napi_uint32_array, &starts_data, &starts_length) ||
      !typed_array(env, argv[2], napi_uint32_array, &ends_data, &ends_length) ||
      !typed_array(env, argv[3], napi_float64_array, &values_data, &values_length) ||
      !typed_array(env, argv[4], napi_uint8_array, &ok_data, &ok_length) ||
      !count_argument(env, argv[5], &count)) {
    napi_throw_type_error(env, nullptr,
                          "expected (Uint8Array, Uint32Array, Uint32Array, Float64Array, Uint8Array, count)");
    return nullptr;
  }
  if (count > starts_length || count > ends_length || count > values_length || count > ok_length) {
    return throw_range(env, "count beyond starts, ends, values or ok");
  }
  const char *text = static_cast<const char *>(text_data);
  const uint32_t *starts = static_cast<const uint32_t *>(starts_data);
  const uint32_t *ends = static_cast<const uint32_t *>(ends_data);
  double *values = static_cast<double *>(values_data);
  uint8_t *ok = static_cast<uint8_t *>(ok_data);
  for (size_t i = 0; i < count; i++) {
    if (starts[i] > ends[i] || ends[i] > text_length) return throw_range(env, "a cell beyond the text");
  }
  for (size_t i = 0; i < count; i++) {
    const char *first = text + starts[i];
    const char *last = text + ends[i];
    // Digits (or '.') first, after an optional '-': never inf or nan, which from_chars spells otherwise.
    const char *digits = first < last && *first == '-' ? first + 1 : first;
    double value = 0;
    bool parsed = false;
    if (digits < last && ((*digits >= '0' && *digits <= '9') || *digits == '.')) {
      auto [end, error] = std::from_chars(first, last, value, std::chars_format::general);
      parsed = error == std::errc() && end == last;
    }
    values[i] = parsed ? value : 0;
    ok[i] = parsed ? 1 : 0;
  }
  return nullptr;
}

// ---- pgTextDataRows ----------------------------------------------------------------------------

enum PgType : uint8_t { PG_BOOL, PG_BYTE, PG_SHORT, PG_INTEGER, PG_LONG, PG_DOUBLE, PG_TIMESTAMP, PG_STRING };
constexpr uint8_t PG_TYPE_COUNT = 8;
/** Value bytes in the page of each fixed-size type (STRING: a varuint length, then its bytes). */
constexpr size_t PG_WIRE_BYTES[PG_TYPE_COUNT] = {1, 1, 2, 4, 8, 8, 8, 0};
/** 'D', int32 length, int16 column count; int32 length before each cell. */
constexpr size_t PG_ROW_HEADER_BYTES = 7;
constexpr size_t PG_CELL_LENGTH_BYTES = 4;
/** The longest cell text but STRING's: -9223372036854775808, -1.2345678901234567e-308, 9999-12-31 23:59:59.999+00. */
constexpr size_t PG_CELL_TEXT_BYTES_MAX = 26;
/** TIMESTAMP_MS_MAX of lib/schema/column-type.ts: 9999-12-31T23:59:59.999Z. */
constexpr uint64_t PG_TIMESTAMP_MS_MAX = 253402300799999ULL;

void put_int32(char *out, uint32_t value) {
  out[0] = static_cast<char>(value >> 24);
  out[1] = static_cast<char>(value >> 16);
  out[2] = static_cast<char>(value >> 8);
  out[3] = static_cast<char>(value);
}

using page_detail::MS_PER_DAY;
using page_detail::civil_from_days;
using page_detail::read_le;
using page_detail::write_integer;

void put_pair(char *out, int value) {
  std::memcpy(out, DIGIT_PAIRS + 2 * value, 2);
}

/** A TIMESTAMP cell: `YYYY-MM-DD hh:mm:ss[.f[f[f]]]+00`, trailing zeros of the ms dropped. */
char *write_timestamp(char *out, uint64_t ms) {
  int year, month, day;
  civil_from_days(ms / MS_PER_DAY, &year, &month, &day);
  uint32_t rest = static_cast<uint32_t>(ms % MS_PER_DAY);
  const uint32_t milli = rest % 1000;
  rest /= 1000;
  put_pair(out, year / 100);
  put_pair(out + 2, year % 100);
  out[4] = '-';
  put_pair(out + 5, month);
  out[7] = '-';
  put_pair(out + 8, day);
  out[10] = ' ';
  put_pair(out + 11, static_cast<int>(rest / 3600));
  out[13] = ':';
  put_pair(out + 14, static_cast<int>(rest / 60 % 60));
  out[16] = ':';
  put_pair(out + 17, static_cast<int>(rest % 60));
  out += 19;
  if (milli != 0) {
    *out++ = '.';
    *out++ = static_cast<char>('0' + milli / 100);
    if (milli % 100 != 0) {
      *out++ = static_cast<char>('0' + milli / 10 % 10);
      if (milli % 10 != 0) *out++ = static_cast<char>('0' + milli % 10);
    }
  }
  std::memcpy(out, "+00", 3);
  return out + 3;
}

/** A DOUBLE cell as String(x), -0 as 0. */
char *write_double_text(char *out, double value) {
  if (value == 0) {
    *out++ = '0';
    return out;
  }
  // write_cell's JSON layout is String(x) for finite values; NaN and ±Infinity come quoted there.
  if (!std::isfinite(value)) {
    if (std::isnan(value)) {
      std::memcpy(out, "NaN", 3);
      return out + 3;
    }
    if (value < 0) *out++ = '-';
    std::memcpy(out, "Infinity", 8);
    return out + 8;
  }
  return write_cell(out, value, Layout::JSON_NUMBER);
}

/** The DataRows of the page into `out` (large enough); nullptr and `why` when the page is bad. */
char *pg_text_data_rows(char *out, const uint8_t *page, size_t page_bytes, size_t count,
                        const uint8_t *codes, size_t column_count, const char **why) {
  const size_t bitmap_bytes = (column_count + 7) / 8;
  const uint8_t *at = page;
  const uint8_t *end = page + page_bytes;
  for (size_t r = 0; r < count; r++) {
    if (static_cast<size_t>(end - at) < bitmap_bytes) {
      *why = "a row past the page end";
      return nullptr;
    }
    const uint8_t *bitmap = at;
    at += bitmap_bytes;
    char *row = out;
    out[0] = 'D';
    out[5] = static_cast<char>(column_count >> 8);
    out[6] = static_cast<char>(column_count);
    out += PG_ROW_HEADER_BYTES;
    for (size_t c = 0; c < column_count; c++) {
      if ((bitmap[c >> 3] & (1u << (c & 7))) != 0) {
        put_int32(out, 0xffffffffu);
        out += PG_CELL_LENGTH_BYTES;
        continue;
      }
      const uint8_t code = codes[c];
      char *cell = out;
      out += PG_CELL_LENGTH_BYTES;
      if (code == PG_STRING) {
        uint64_t size = 0;
        int shift = 0;
        bool ended = false;
        for (int i = 0; i < 8; i++) {
          if (at >= end) {
            *why = "a length past the page end";
            return nullptr;
          }
          const uint8_t byte = *at++;
          size |= static_cast<uint64_t>(byte & 0x7f) << shift;
          shift += 7;
          if (byte < 0x80) {
            ended = true;
            break;
          }
        }
        if (!ended) {
          *why = "a length longer than 8 bytes";
          return nullptr;
        }
        if (size > static_cast<uint64_t>(end - at)) {
          *why = "a string past the page end";
          return nullptr;
        }
        std::memcpy(out, at, size);
        out += size;
        at += size;
      } else {
        if (static_cast<size_t>(end - at) < PG_WIRE_BYTES[code]) {
          *why = "a value past the page end";
          return nullptr;
        }
        switch (code) {
          case PG_BOOL:
            if (*at > 1) {
              *why = "a BOOL of more than 1";
              return nullptr;
            }
            *out++ = *at == 1 ? 't' : 'f';
            break;
          case PG_BYTE: out = write_integer(out, static_cast<int8_t>(*at)); break;
          case PG_SHORT: out = write_integer(out, read_le<int16_t>(at)); break;
          case PG_INTEGER: out = write_integer(out, read_le<int32_t>(at)); break;
          case PG_LONG: out = write_integer(out, read_le<int64_t>(at)); break;
          case PG_DOUBLE: out = write_double_text(out, read_le<double>(at)); break;
          default: {  // PG_TIMESTAMP
            const uint64_t ms = read_le<uint64_t>(at);
            if (ms > PG_TIMESTAMP_MS_MAX) {
              *why = "a TIMESTAMP past 9999-12-31";
              return nullptr;
            }
            out = write_timestamp(out, ms);
          }
        }
        at += PG_WIRE_BYTES[code];
      }
      put_int32(cell, static_cast<uint32_t>(out - cell - PG_CELL_LENGTH_BYTES));
    }
    put_int32(row + 1, static_cast<uint32_t>(out - row - 1));
  }
  if (at != end) {
    *why = "bytes after the last row";
    return nullptr;
  }
  return out;
}

napi_value pg_text_data_rows_call(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  void *page_data, *codes_data;
  size_t page_bytes, count, column_count;
  if (argc < 3 || !typed_array(env, argv[0], napi_uint8_array, &page_data, &page_bytes) ||
      !count_argument(env, argv[1], &count) ||
      !typed_array(env, argv[2], napi_uint8_array, &codes_data, &column_count)) {
    napi_throw_type_error(env, nullptr, "expected (Uint8Array, count, Uint8Array)");
    return nullptr;
  }
  const uint8_t *codes = static_cast<const uint8_t *>(codes_data);
  for (size_t c = 0; c < column_count; c++) {
    if (codes[c] >= PG_TYPE_COUNT) {
      napi_throw_type_error(env, nullptr, "a type code past STRING");
      return nullptr;
    }
  }
  if (column_count > 0xffff) {
    napi_throw_type_error(env, nullptr, "more than 65535 columns");
    return nullptr;
  }
  // A STRING's text is at most its bytes in the page; every other cell at most PG_CELL_TEXT_BYTES_MAX.
  thread_local std::vector<char> scratch;
  const size_t bound =
      count * (PG_ROW_HEADER_BYTES + column_count * (PG_CELL_LENGTH_BYTES + PG_CELL_TEXT_BYTES_MAX)) + page_bytes;
  if (scratch.size() < bound + 1) scratch.resize(bound + 1);  // + 1: never an empty vector's nullptr
  const char *why = nullptr;
  const char *end = pg_text_data_rows(scratch.data(), static_cast<const uint8_t *>(page_data), page_bytes,
                                      count, codes, column_count, &why);
  napi_value result;
  if (end == nullptr) {
    if (napi_create_string_utf8(env, why, NAPI_AUTO_LENGTH, &result) != napi_ok) return nullptr;
    return result;
  }
  if (napi_create_buffer_copy(env, end - scratch.data(), scratch.data(), nullptr, &result) != napi_ok) {
    return nullptr;
  }
  return result;
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_value rows;
  napi_create_function(env, "pgTextDataRows", NAPI_AUTO_LENGTH, pg_text_data_rows_call, nullptr, &rows);
  napi_set_named_property(env, exports, "pgTextDataRows", rows);
  napi_value parse;
  napi_create_function(env, "parseDoubles", NAPI_AUTO_LENGTH, parse_doubles, nullptr, &parse);
  napi_set_named_property(env, exports, "parseDoubles", parse);
  napi_value fn;
  napi_create_function(env, "spliceDoubles", NAPI_AUTO_LENGTH, splice_doubles, nullptr, &fn);
  napi_set_named_property(env, exports, "spliceDoubles", fn);
  napi_value json;
  napi_create_function(env, "spliceJsonDoubles", NAPI_AUTO_LENGTH, splice_json_doubles, nullptr,
                       &json);
  napi_set_named_property(env, exports, "spliceJsonDoubles", json);
  napi_value page;
  napi_create_function(env, "printPage", NAPI_AUTO_LENGTH, print_page_call, nullptr, &page);
  napi_set_named_property(env, exports, "printPage", page);
  return exports;
}

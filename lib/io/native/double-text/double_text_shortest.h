// The shortest round-trip digits of a double, as Number.prototype.toString chooses them
// (double_text.cc lays them out; perf/double-text-bench.cc checks them against std::to_chars and
// times both). Header only, so that the bench compiles it without Node's headers.
#pragma once
#include <cassert>
#include <cstdint>
#include <cstring>
#include "double_text_pow10.h"

namespace {

/** A positive finite double as significand × 10^exponent, the significand free of trailing zeros. */
struct Decimal {
  uint64_t significand;
  int exponent;
};

/** floor(e · log10 2), floor(e · log10 2 - log10 4/3) and floor(e · log2 10) for the exponents met. */
int floor_log10_pow2(int e) { return (e * 1262611) >> 22; }
int floor_log10_three_quarters_pow2(int e) { return (e * 1262611 - 524031) >> 22; }
int floor_log2_pow10(int e) { return (e * 1741647) >> 19; }

/** floor(g · cp / 2^128), its lowest bit set when bits were cut off (Schubfach's round to odd). */
uint64_t round_to_odd(const Pow10 &g, uint64_t cp) {
  const unsigned __int128 low = static_cast<unsigned __int128>(g.low) * cp;
  const unsigned __int128 high = static_cast<unsigned __int128>(g.high) * cp + (low >> 64);
  const uint64_t high_high = static_cast<uint64_t>(high >> 64);
  const uint64_t high_low = static_cast<uint64_t>(high);
  return high_high | (high_low > 1 ? 1 : 0);
}

/**
 * The shortest decimal that reads back as `value` (> 0, finite), the nearest to it of those, the
 * even one on a tie: what Number.prototype.toString prints. Schubfach (R. Giulietti, "The Schubfach
 * way to render doubles", 2020): the rounding interval's ends and the value itself scaled by
 * 10^-k with one 128-bit multiplication each, k chosen so that the scaled value has 16 or 17
 * digits; then the one multiple of 10 inside the interval if it holds exactly one, else the one
 * integer inside it, else the integer nearest the value. libstdc++'s std::to_chars (Ryu) gives
 * the same digits in about twice the time (perf/double-text-bench.cc).
 */
Decimal shortest_decimal(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  const int biased = static_cast<int>(bits >> 52) & 0x7ff;
  assert(biased != 0x7ff);
  assert(bits != 0);
  // value = c · 2^q.
  const uint64_t c = biased == 0 ? fraction : fraction | (uint64_t{1} << 52);
  const int q = biased == 0 ? -1074 : biased - 1075;
  // The interval of reals that round to value, scaled by 4: (cbl, cbr), ends included when c is even.
  const uint64_t cb = c << 2;
  const uint64_t cbr = cb + 2;
  const bool lower_closer = fraction == 0 && biased > 1;
  const uint64_t cbl = lower_closer ? cb - 1 : cb - 2;
  const int k = lower_closer ? floor_log10_three_quarters_pow2(q) : floor_log10_pow2(q);
  const int h = q + floor_log2_pow10(-k) + 1;
  assert(-k >= POW10_INDEX_MIN && -k <= POW10_INDEX_MAX);
  assert(h >= 1 && h <= 4);
  const Pow10 &g = POW10_TABLE[-k - POW10_INDEX_MIN];
  const uint64_t vb = round_to_odd(g, cb << h);
  const uint64_t vbl = round_to_odd(g, cbl << h);
  const uint64_t vbr = round_to_odd(g, cbr << h);
  const uint64_t open = c & 1;
  const uint64_t lower = vbl + open;
  const uint64_t upper = vbr - open;
  uint64_t significand;
  int exponent = k;
  const uint64_t s = vb >> 2;
  bool chosen = false;
  if (s >= 10) {
    const uint64_t sp = s / 10;
    const bool u_inside = lower <= 40 * sp;
    const bool w_inside = 40 * sp + 40 <= upper;
    if (u_inside != w_inside) {
      significand = sp + (w_inside ? 1 : 0);
      exponent = k + 1;
      chosen = true;
    }
  }
  if (!chosen) {
    const bool u_inside = lower <= 4 * s;
    const bool w_inside = 4 * s + 4 <= upper;
    if (u_inside != w_inside) {
      significand = s + (w_inside ? 1 : 0);
    } else {
      const uint64_t middle = 4 * s + 2;
      const bool round_up = vb > middle || (vb == middle && (s & 1) != 0);
      significand = s + (round_up ? 1 : 0);
    }
  }
  assert(significand > 0);
  while (significand % 10 == 0) {
    significand /= 10;
    exponent++;
  }
  return Decimal{significand, exponent};
}

constexpr char DIGIT_PAIRS[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/** The digits of `value` (> 0) at `out`, most significant first, in 32-bit steps; returns how many. */
int write_digits_short(char *out, uint32_t value) {
  char reversed[10];
  int at = 10;
  while (value >= 100) {
    at -= 2;
    std::memcpy(reversed + at, DIGIT_PAIRS + 2 * (value % 100), 2);
    value /= 100;
  }
  if (value >= 10) {
    at -= 2;
    std::memcpy(reversed + at, DIGIT_PAIRS + 2 * value, 2);
  } else {
    reversed[--at] = static_cast<char>('0' + value);
  }
  std::memcpy(out, reversed + at, 10 - at);
  return 10 - at;
}

/** The 8 digits of `value` (< 10^8), leading zeros included, at `out`: four independent pairs. */
void write_digits_8(char *out, uint32_t value) {
  const uint32_t high = value / 10000;
  const uint32_t low = value % 10000;
  std::memcpy(out, DIGIT_PAIRS + 2 * (high / 100), 2);
  std::memcpy(out + 2, DIGIT_PAIRS + 2 * (high % 100), 2);
  std::memcpy(out + 4, DIGIT_PAIRS + 2 * (low / 100), 2);
  std::memcpy(out + 6, DIGIT_PAIRS + 2 * (low % 100), 2);
}

/**
 * The decimal digits of `significand` (> 0, < 10^20) at `out`, most significant first; returns
 * how many (at most 20). The last 8 (or 16) digits go as 8-digit blocks, the rest as one short number.
 */
int write_digits(char *out, uint64_t significand) {
  constexpr uint64_t E8 = 100000000;
  if (significand < E8) return write_digits_short(out, static_cast<uint32_t>(significand));
  const uint32_t last = static_cast<uint32_t>(significand % E8);
  const uint64_t rest = significand / E8;
  int count;
  if (rest < E8) {
    count = write_digits_short(out, static_cast<uint32_t>(rest));
  } else {
    count = write_digits_short(out, static_cast<uint32_t>(rest / E8));
    write_digits_8(out + count, static_cast<uint32_t>(rest % E8));
    count += 8;
  }
  write_digits_8(out + count, last);
  return count + 8;
}

}  // namespace

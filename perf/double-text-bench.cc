// The export's shortest double digits (lib/io/native/double-text/double_text_shortest.h, Schubfach)
// checked against and timed beside libstdc++'s std::to_chars (Ryu), the formatter it replaced: the
// same shortest digits for random bit patterns of every exponent, the values around each power of two and ten, and the
// TSBS day's kind of value (a random double in [0, 100]); then ns per value of each on the latter.
// Exits 1 on the first difference. Build and run from the project root:
//   mkdir -p var && g++ -std=c++17 -O2 -o var/double-text-bench perf/double-text-bench.cc && var/double-text-bench
// (about 57 M values checked, 10-30 s).
#include <ctime>
#include <cstdio>
#include <random>
#include <vector>
#include <charconv>
#include <string>
#include "../lib/io/native/double-text/double_text_shortest.h"

namespace {

/** value's shortest digits and decimal point place n by std::to_chars, as double_text.cc took them. */
int reference(double value, char *digits, int *n) {
  char scientific[32];
  char *end = std::to_chars(scientific, scientific + sizeof scientific, value, std::chars_format::scientific).ptr;
  int k = 0;
  char *p = scientific;
  for (; p < end && *p != 'e'; p++) {
    if (*p != '.') digits[k++] = *p;
  }
  p++;
  const bool negative = *p == '-';
  p++;
  int exponent = 0;
  for (; p < end; p++) exponent = exponent * 10 + (*p - '0');
  *n = (negative ? -exponent : exponent) + 1;
  return k;
}

int schubfach(double value, char *digits, int *n) {
  const Decimal decimal = shortest_decimal(value);
  const int k = write_digits(digits, decimal.significand);
  *n = k + decimal.exponent;
  return k;
}

bool same(double value) {
  char a[32], b[32];
  int na, nb;
  const int ka = reference(value, a, &na);
  const int kb = schubfach(value, b, &nb);
  if (ka == kb && na == nb && std::memcmp(a, b, ka) == 0) return true;
  std::printf("%.17g: to_chars %.*s n=%d, schubfach %.*s n=%d\n", value, ka, a, na, kb, b, nb);
  return false;
}

double cpu_s() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

double from_bits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace

int main() {
  std::mt19937_64 random(20261126);
  long checked = 0;
  // Every biased exponent, random fractions, and the ends of each binade.
  for (uint64_t biased = 0; biased < 0x7ff; biased++) {
    for (uint64_t fraction : {uint64_t{0}, uint64_t{1}, uint64_t{2}, (uint64_t{1} << 52) - 1, (uint64_t{1} << 52) - 2}) {
      const uint64_t bits = biased << 52 | fraction;
      if (bits != 0 && !same(from_bits(bits))) return 1;
      checked++;
    }
    for (int i = 0; i < 20000; i++) {
      const uint64_t bits = biased << 52 | (random() & ((uint64_t{1} << 52) - 1));
      if (bits != 0 && !same(from_bits(bits))) return 1;
      checked++;
    }
  }
  // Powers of ten and their neighbours, integers, short decimals.
  for (int e = -323; e <= 308; e++) {
    uint64_t bits;
    const double power = std::strtod(("1e" + std::to_string(e)).c_str(), nullptr);
    std::memcpy(&bits, &power, sizeof bits);
    for (int d = -4; d <= 4; d++) {
      const double near = from_bits(bits + d);
      if (near > 0 && std::isfinite(near) && !same(near)) return 1;
      checked++;
    }
  }
  for (long i = 1; i < 2000000; i++) {
    if (!same(static_cast<double>(i)) || !same(i / 1000.0) || !same(i * 1e15)) return 1;
    checked += 3;
  }
  std::uniform_real_distribution<double> usage(0, 100);
  constexpr int TSBS_COUNT = 10000000;
  std::vector<double> values(TSBS_COUNT);
  for (double &value : values) value = usage(random);
  for (double value : values) {
    if (!same(value)) return 1;
  }
  checked += TSBS_COUNT;
  std::printf("checked %ld values: same digits\n", checked);
  char digits[32];
  int n;
  long sink = 0;
  for (int round = 0; round < 3; round++) {
    // CPU time of this thread: the machine may be shared.
    const double start = cpu_s();
    for (double value : values) sink += reference(value, digits, &n) + digits[0];
    const double middle = cpu_s();
    for (double value : values) sink += schubfach(value, digits, &n) + digits[0];
    const double end = cpu_s();
    const double per = 1e9 / TSBS_COUNT;
    std::printf("values in [0, 100): to_chars %.1f ns, schubfach %.1f ns per value (CPU time)\n",
                (middle - start) * per, (end - middle) * per);
  }
  return sink == 42 ? 2 : 0;
}

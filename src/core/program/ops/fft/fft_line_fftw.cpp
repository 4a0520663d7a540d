// The 1-d transforms of fft_line.hpp through FFTW, where the build found it (NDBUF_HAVE_FFTW;
// fft_line.cpp is the engine otherwise). Plans are made once per length and kind with
// FFTW_ESTIMATE (tens of microseconds; FFTW_MEASURE would time candidates for a tenth of a
// second and overwrite its arrays) and kept in a small process-wide cache. A plan is executed
// on any line through FFTW's new-array interface, which is thread-safe; only planning is not,
// so it happens under one mutex.
#ifdef NDBUF_HAVE_FFTW

#include <fftw3.h>

#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "ndbuf/base/error.hpp"
#include "program/ops/fft/fft_line.hpp"

namespace ndbuf::program {
namespace {

enum class Kind { kForward, kInverse, kRealForward, kRealInverse };

// FFTW's float and double interfaces, with names this file calls either by.
template <class S>
struct Fftw;

template <>
struct Fftw<float> {
  using Plan = fftwf_plan;
  using Cx = fftwf_complex;
  static void* allocate(size_t bytes) { return fftwf_malloc(bytes); }
  static void release(void* p) { fftwf_free(p); }
  static void destroy(Plan p) { fftwf_destroy_plan(p); }
  static bool aligned(const void* p) {
    return fftwf_alignment_of(static_cast<float*>(const_cast<void*>(p))) == 0;
  }
  static Plan complex(int n, Cx* in, Cx* out, int sign) {
    return fftwf_plan_dft_1d(n, in, out, sign, FFTW_ESTIMATE);
  }
  static Plan real_forward(int n, float* in, Cx* out) {
    return fftwf_plan_dft_r2c_1d(n, in, out, FFTW_ESTIMATE);
  }
  static Plan real_inverse(int n, Cx* in, float* out) {
    return fftwf_plan_dft_c2r_1d(n, in, out, FFTW_ESTIMATE);
  }
  static void run(Plan p, Cx* in, Cx* out) { fftwf_execute_dft(p, in, out); }
  static void run(Plan p, float* in, Cx* out) { fftwf_execute_dft_r2c(p, in, out); }
  static void run(Plan p, Cx* in, float* out) { fftwf_execute_dft_c2r(p, in, out); }
};

template <>
struct Fftw<double> {
  using Plan = fftw_plan;
  using Cx = fftw_complex;
  static void* allocate(size_t bytes) { return fftw_malloc(bytes); }
  static void release(void* p) { fftw_free(p); }
  static void destroy(Plan p) { fftw_destroy_plan(p); }
  static bool aligned(const void* p) {
    return fftw_alignment_of(static_cast<double*>(const_cast<void*>(p))) == 0;
  }
  static Plan complex(int n, Cx* in, Cx* out, int sign) {
    return fftw_plan_dft_1d(n, in, out, sign, FFTW_ESTIMATE);
  }
  static Plan real_forward(int n, double* in, Cx* out) {
    return fftw_plan_dft_r2c_1d(n, in, out, FFTW_ESTIMATE);
  }
  static Plan real_inverse(int n, Cx* in, double* out) {
    return fftw_plan_dft_c2r_1d(n, in, out, FFTW_ESTIMATE);
  }
  static void run(Plan p, Cx* in, Cx* out) { fftw_execute_dft(p, in, out); }
  static void run(Plan p, double* in, Cx* out) { fftw_execute_dft_r2c(p, in, out); }
  static void run(Plan p, Cx* in, double* out) { fftw_execute_dft_c2r(p, in, out); }
};

// FFTW's planner is not thread-safe: plans are made and destroyed under this lock. (Another
// package of the same process planning on another thread at that moment is not covered: that
// needs FFTW's threads library, which this build does not link.)
std::mutex& planner_mutex() {
  static std::mutex mutex;
  return mutex;
}

// FFTW-aligned memory of `count` complex values of precision S.
template <class S>
struct AlignedBlock {
  using Cx = typename Fftw<S>::Cx;
  explicit AlignedBlock(int64_t count)
      : data(static_cast<Cx*>(Fftw<S>::allocate(sizeof(Cx) * static_cast<size_t>(count)))) {
    if (data == nullptr)
      fail(ErrorKind::kOutOfMemory, "stablehlo.fft could not allocate its work space");
  }
  AlignedBlock(const AlignedBlock&) = delete;
  AlignedBlock& operator=(const AlignedBlock&) = delete;
  ~AlignedBlock() { Fftw<S>::release(data); }
  S* reals() const { return reinterpret_cast<S*>(data); }
  Cx* data;
};

template <class S>
class SharedPlan {
 public:
  SharedPlan(int64_t n, Kind kind) {
    // FFTW_ESTIMATE plans without touching the arrays; they only fix in-place-ness and alignment.
    AlignedBlock<S> in(n), out(n);
    const int length = static_cast<int>(n);
    switch (kind) {
      case Kind::kForward:
        plan_ = Fftw<S>::complex(length, in.data, in.data, FFTW_FORWARD);
        break;
      case Kind::kInverse:
        plan_ = Fftw<S>::complex(length, in.data, in.data, FFTW_BACKWARD);
        break;
      case Kind::kRealForward:
        plan_ = Fftw<S>::real_forward(length, in.reals(), out.data);
        break;
      case Kind::kRealInverse:
        plan_ = Fftw<S>::real_inverse(length, in.data, out.reals());
        break;
    }
    if (plan_ == nullptr)
      fail(ErrorKind::kOutOfMemory, "stablehlo.fft could not plan its transform");
  }
  SharedPlan(const SharedPlan&) = delete;
  SharedPlan& operator=(const SharedPlan&) = delete;
  ~SharedPlan() {
    std::lock_guard<std::mutex> lock(planner_mutex());
    Fftw<S>::destroy(plan_);
  }
  typename Fftw<S>::Plan get() const { return plan_; }

 private:
  typename Fftw<S>::Plan plan_ = nullptr;
};

// Plans of the lengths programs use most stay for the process; past this many, a plan lives
// only as long as the transforms that made it (a program of many lengths cannot grow the cache).
constexpr size_t kCachedPlans = 64;

template <class S>
std::shared_ptr<const SharedPlan<S>> plan_for(int64_t n, Kind kind) {
  static std::map<std::tuple<int64_t, Kind>, std::shared_ptr<const SharedPlan<S>>> cache;
  // Declared before the lock: a plan this call made and cannot keep is destroyed after the
  // lock is released (its destructor takes the lock).
  std::shared_ptr<const SharedPlan<S>> plan;
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    const auto key = std::make_tuple(n, kind);
    if (auto found = cache.find(key); found != cache.end()) return found->second;
    plan = std::make_shared<const SharedPlan<S>>(n, kind);
    if (cache.size() < kCachedPlans) cache.emplace(key, plan);
  }
  return plan;
}

}  // namespace

template <class S>
struct FftLine<S>::Plan {
  using Cx = typename Fftw<S>::Cx;

  int64_t n = 0;
  std::array<std::shared_ptr<const SharedPlan<S>>, 4> plans;
  // Lines that are not FFTW-aligned (or, for a real inverse, must not be overwritten) are
  // copied here: two lines of n complex values, made on first need, never shared by copies.
  std::unique_ptr<AlignedBlock<S>> scratch;

  explicit Plan(int64_t length) : n(length) {}
  Plan(const Plan& other) : n(other.n), plans(other.plans) {}

  typename Fftw<S>::Plan plan(Kind kind) {
    auto& slot = plans[static_cast<size_t>(kind)];
    if (!slot) slot = plan_for<S>(n, kind);
    return slot->get();
  }

  Cx* spare(int64_t which) {
    if (!scratch) scratch = std::make_unique<AlignedBlock<S>>(2 * n);
    return scratch->data + which * n;
  }

  void complex(Complex* data, Kind kind) {
    const auto p = plan(kind);
    Cx* line = reinterpret_cast<Cx*>(data);
    if (Fftw<S>::aligned(line)) return Fftw<S>::run(p, line, line);
    Cx* copy = spare(0);
    std::memcpy(copy, line, sizeof(Cx) * static_cast<size_t>(n));
    Fftw<S>::run(p, copy, copy);
    std::memcpy(line, copy, sizeof(Cx) * static_cast<size_t>(n));
  }

  void real_forward(const S* in, Complex* out) {
    const auto p = plan(Kind::kRealForward);
    const int64_t half = n / 2 + 1;
    // An out-of-place real forward transform leaves its input as it was (FFTW's default).
    S* source = const_cast<S*>(in);
    if (!Fftw<S>::aligned(source)) {
      source = reinterpret_cast<S*>(spare(0));
      std::memcpy(source, in, sizeof(S) * static_cast<size_t>(n));
    }
    Cx* target = reinterpret_cast<Cx*>(out);
    if (Fftw<S>::aligned(target)) return Fftw<S>::run(p, source, target);
    Fftw<S>::run(p, source, spare(1));
    std::memcpy(target, spare(1), sizeof(Cx) * static_cast<size_t>(half));
  }

  // A real inverse transform overwrites its input, so the input is always copied first.
  void real_inverse(const Complex* in, S* out) {
    const auto p = plan(Kind::kRealInverse);
    Cx* source = spare(0);
    std::memcpy(source, in, sizeof(Cx) * static_cast<size_t>(n / 2 + 1));
    if (Fftw<S>::aligned(out)) return Fftw<S>::run(p, source, out);
    S* target = reinterpret_cast<S*>(spare(1));
    Fftw<S>::run(p, source, target);
    std::memcpy(out, target, sizeof(S) * static_cast<size_t>(n));
  }
};

template <class S>
FftLine<S>::FftLine(int64_t n) : plan_(std::make_unique<Plan>(n)) {}

template <class S>
FftLine<S>::FftLine(const FftLine& other) : plan_(std::make_unique<Plan>(*other.plan_)) {}

template <class S>
FftLine<S>::~FftLine() = default;

template <class S>
int64_t FftLine<S>::length() const {
  return plan_->n;
}

template <class S>
void FftLine<S>::forward(Complex* data) {
  plan_->complex(data, Kind::kForward);
}

template <class S>
void FftLine<S>::inverse(Complex* data) {
  plan_->complex(data, Kind::kInverse);
}

template <class S>
void FftLine<S>::real_forward(const S* in, Complex* out) {
  plan_->real_forward(in, out);
}

template <class S>
void FftLine<S>::real_inverse(const Complex* in, S* out) {
  plan_->real_inverse(in, out);
}

template class FftLine<float>;
template class FftLine<double>;

}  // namespace ndbuf::program

#endif  // NDBUF_HAVE_FFTW

// The MPI transport (mpi_ranks.hpp).
#include "program/spmd/mpi_ranks.hpp"

#include "ndbuf/base/error.hpp"
#include "program/spmd/flat_range.hpp"

#ifdef NDBUF_HAVE_MPI
// MPI's C interface only (its deprecated C++ bindings do not compile warning-free).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <dlfcn.h>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <map>
#include <mutex>
#include <thread>
#endif

namespace ndbuf::program {

#ifndef NDBUF_HAVE_MPI

bool mpi_built_in() { return false; }

std::unique_ptr<RemoteRanks> connect_mpi() {
  fail(ErrorKind::kDevice,
       "this build has no MPI: install Open MPI (Debian: libopenmpi-dev openmpi-bin) and build "
       "again to run programs across processes");
}

void finalize_mpi() {}

#else

namespace {

// The channel of allreduce's ring messages (process groups' channels are hashes).
constexpr uint64_t kRingChannel = 0x72696e67ULL;

// Spin (yielding) this long before sleeping between polls: MPI's nonblocking collectives
// progress only while polled, and most waits are short.
constexpr std::chrono::milliseconds kSpinFor{200};
constexpr std::chrono::microseconds kNap{200};

bool& started_here() {
  static bool started = false;
  return started;
}

bool& any_failed() {
  static bool failed = false;
  return failed;
}

// Open MPI loads its components as plugins that look up the library's own symbols, which a
// library loaded with RTLD_LOCAL (as R loads packages) hides: make libmpi's symbols global.
void expose_mpi_symbols() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&MPI_Init_thread), &info) != 0 && info.dli_fname != nullptr) {
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  }
}

class MpiRanks final : public RemoteRanks {
 public:
  MpiRanks() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    int* upper = nullptr;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &upper, &found);
    tag_limit_ = found != 0 && upper != nullptr ? *upper : 32767;
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> allgather(const std::vector<int>& ranks, uint64_t channel,
                                     const std::string& mine, const WaitLimit& limit) override {
    check_usable();
    if (mine.size() > static_cast<size_t>(INT_MAX)) {
      fail(ErrorKind::kInvalidArgument,
           "a collective's part of " + std::to_string(mine.size()) +
               " bytes is over the 2 GiB one message between ranks may carry");
    }
    const int tag = next_tag(channel);
    auto sent = std::make_shared<std::string>(mine);
    std::vector<std::string> out(ranks.size());
    std::vector<MPI_Request> sends;
    std::vector<size_t> pending;  // positions still to receive
    for (size_t k = 0; k < ranks.size(); ++k) {
      if (ranks[k] == rank_) {
        out[k] = mine;
        continue;
      }
      pending.push_back(k);
      MPI_Request request = MPI_REQUEST_NULL;
      std::lock_guard<std::mutex> lock(mutex_);
      check(MPI_Isend(sent->data(), static_cast<int>(sent->size()), MPI_BYTE, ranks[k], tag, comm_,
                      &request));
      sends.push_back(request);
    }
    std::vector<int> peers;
    for (size_t k : pending) peers.push_back(ranks[k]);
    receive(ranks, tag, pending, out, limit, sent);
    wait(sends, limit, peers, sent);
    return out;
  }

  // A ring over point-to-point messages: in n - 1 steps each rank folds the chunk its left
  // neighbour sends into its own (so rank r ends holding chunk r + 1 folded over every rank, in
  // ring order from rank r + 2), then n - 1 steps pass the folded chunks round. Messages land
  // in `out` and in one chunk of scratch from the block recycler: MPI's own allreduce takes a
  // fresh buffer of the whole operand on every call, whose pages fault in (measured 75-400 ms a
  // call for 64 MB on a virtual machine, against 40 ms for the same call in a fresh C process).
  bool allreduce(const Tensor& in, const Tensor& out, const FoldInto& fold,
                 const WaitLimit& limit) override {
    const int64_t n = in.numel();
    const int ranks = size_;
    const auto begin = [&](int chunk) { return n * chunk / ranks; };
    const auto ring = [&](int k) { return ((k % ranks) + ranks) % ranks; };
    int64_t largest = 0;
    for (int c = 0; c < ranks; ++c) largest = std::max(largest, begin(c + 1) - begin(c));
    if (static_cast<size_t>(largest) * itemsize(in.dtype()) > static_cast<size_t>(INT_MAX)) {
      return false;
    }
    check_usable();
    const int tag = next_tag(kRingChannel);
    const Tensor scratch = Tensor::allocate(in.dtype(), {largest}, Order::kRowMajor);
    const int right = ring(rank_ + 1);
    const int left = ring(rank_ - 1);
    const auto chunk = [&](const Tensor& t, int c) {
      return flat_range(t, begin(c), begin(c + 1));
    };
    for (int step = 0; step + 1 < ranks; ++step) {
      const int sent = ring(rank_ - step);
      const int received = ring(rank_ - step - 1);
      const Tensor incoming = flat_range(scratch, 0, begin(received + 1) - begin(received));
      pass_along(chunk(step == 0 ? in : out, sent), right, incoming, left, tag, limit,
                 {in, out, scratch});
      fold(chunk(in, received), incoming, chunk(out, received));
    }
    for (int step = 0; step + 1 < ranks; ++step) {
      pass_along(chunk(out, ring(rank_ + 1 - step)), right, chunk(out, ring(rank_ - step)), left,
                 tag, limit, {in, out, scratch});
    }
    return true;
  }

  bool allgather_blocks(const Tensor& in, const Tensor& out, const WaitLimit& limit) override {
    if (in.nbytes() > INT_MAX) return false;
    check_usable();
    std::vector<MPI_Request> request(1, MPI_REQUEST_NULL);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const int bytes = static_cast<int>(in.nbytes());
      check(MPI_Iallgather(in.data(), bytes, MPI_BYTE, out.data(), bytes, MPI_BYTE, comm_,
                           request.data()));
    }
    wait(request, limit, {}, nullptr, {in, out});
    return true;
  }

 private:
  int next_tag(uint64_t channel) {
    std::lock_guard<std::mutex> lock(mutex_);
    const uint64_t n = sequence_[channel]++;
    return static_cast<int>((channel ^ (n * 0x9E3779B97F4A7C15ULL)) %
                            static_cast<uint64_t>(tag_limit_));
  }

  // Sends `send` to rank `to` while receiving `into` from rank `from`.
  void pass_along(const Tensor& send, int to, const Tensor& into, int from, int tag,
                  const WaitLimit& limit, std::vector<Tensor> touched) {
    std::vector<MPI_Request> requests(2, MPI_REQUEST_NULL);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      check(MPI_Irecv(into.data(), static_cast<int>(into.nbytes()), MPI_BYTE, from, tag, comm_,
                      &requests[0]));
      check(MPI_Isend(send.data(), static_cast<int>(send.nbytes()), MPI_BYTE, to, tag, comm_,
                      &requests[1]));
    }
    wait(requests, limit, {from, to}, nullptr, std::move(touched));
  }

  void receive(const std::vector<int>& ranks, int tag, std::vector<size_t> pending,
               std::vector<std::string>& out, const WaitLimit& limit,
               const std::shared_ptr<std::string>& sent) {
    const auto spin_until = std::chrono::steady_clock::now() + kSpinFor;
    while (!pending.empty()) {
      for (auto at = pending.begin(); at != pending.end();) {
        if (take_message(ranks[*at], tag, out[*at])) {
          at = pending.erase(at);
        } else {
          ++at;
        }
      }
      if (pending.empty()) break;
      std::vector<int> missing;
      for (size_t k : pending) missing.push_back(ranks[k]);
      pause(limit, missing, spin_until, sent, {});
    }
  }

  // A whole message from `source` with `tag` into `into`, if one has arrived.
  bool take_message(int source, int tag, std::string& into) {
    std::lock_guard<std::mutex> lock(mutex_);
    int flag = 0;
    MPI_Message message = MPI_MESSAGE_NULL;
    MPI_Status status;
    check(MPI_Improbe(source, tag, comm_, &flag, &message, &status));
    if (flag == 0) return false;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    into.resize(static_cast<size_t>(count));
    check(MPI_Mrecv(into.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE));
    return true;
  }

  void wait(std::vector<MPI_Request>& requests, const WaitLimit& limit, std::vector<int> peers,
            const std::shared_ptr<std::string>& sent, std::vector<Tensor> touched = {}) {
    const auto spin_until = std::chrono::steady_clock::now() + kSpinFor;
    while (true) {
      int done = 0;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        check(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                          MPI_STATUSES_IGNORE));
      }
      if (done != 0) return;
      pause(limit, peers, spin_until, sent, touched);
    }
  }

  // Between polls: fails on an interrupt or past the deadline, keeping alive what an
  // unfinished operation may still read or write.
  void pause(const WaitLimit& limit, const std::vector<int>& peers,
             std::chrono::steady_clock::time_point spin_until,
             const std::shared_ptr<std::string>& sent, const std::vector<Tensor>& touched) {
    const auto now = std::chrono::steady_clock::now();
    const bool interrupted = limit.cancelled != nullptr && limit.cancelled->load();
    if (interrupted || now >= limit.deadline) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (sent) kept_bytes_.push_back(sent);
      kept_tensors_.insert(kept_tensors_.end(), touched.begin(), touched.end());
      broken_ = interrupted ? "an exchange between ranks was interrupted"
                            : "an exchange between ranks timed out";
      any_failed() = true;
      if (interrupted) fail(ErrorKind::kInterrupted, "Interrupted by the user.");
      fail(ErrorKind::kDevice, timeout_text(peers));
    }
    if (now < spin_until) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(kNap);
    }
  }

  std::string timeout_text(std::vector<int> peers) const {
    std::sort(peers.begin(), peers.end());
    peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
    std::string who = "the other ranks";
    if (!peers.empty()) {
      who = peers.size() == 1 ? "rank " : "ranks ";
      for (size_t k = 0; k < peers.size(); ++k) {
        who += (k == 0 ? "" : ", ") + std::to_string(peers[k]);
      }
    }
    return "rank " + std::to_string(rank_) + " waited past its collective timeout for " + who +
           ", which never arrived (a rank that died or exited, runs a different program, or is "
           "stalled)";
  }

  void check_usable() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!broken_.empty()) {
      fail(ErrorKind::kDevice, "the ranks can no longer exchange: " + broken_ +
                                   " earlier, and MPI cannot cancel it; start the job again");
    }
  }

  void check(int code) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING] = {0};
    int length = 0;
    MPI_Error_string(code, text, &length);
    broken_ = std::string("MPI failed: ") + text;
    any_failed() = true;
    fail(ErrorKind::kDevice, "rank " + std::to_string(rank_) + ": " + broken_);
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int tag_limit_ = 32767;
  std::mutex mutex_;  // one MPI call at a time, whatever thread level MPI was started with
  std::map<uint64_t, uint64_t> sequence_;
  std::string broken_;  // why the ranks can no longer exchange (guarded by mutex_)
  std::vector<std::shared_ptr<std::string> > kept_bytes_;
  std::vector<Tensor> kept_tensors_;
};

}  // namespace

bool mpi_built_in() { return true; }

std::unique_ptr<RemoteRanks> connect_mpi() {
  int initialised = 0;
  MPI_Initialized(&initialised);
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (finalised != 0) fail(ErrorKind::kDevice, "MPI was finalised in this process already");
  if (initialised == 0) {
    expose_mpi_symbols();
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
      fail(ErrorKind::kDevice, "MPI could not be initialised");
    }
    started_here() = true;
  }
  return std::make_unique<MpiRanks>();
}

void finalize_mpi() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (started_here() && finalised == 0 && !any_failed()) MPI_Finalize();
}

#endif

}  // namespace ndbuf::program

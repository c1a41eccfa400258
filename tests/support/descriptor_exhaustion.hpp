#pragma once
// Runs out of file descriptors on purpose: lowers this process's soft RLIMIT_NOFILE to a little above the
// descriptors in use and opens /dev/null until open fails with EMFILE. `release` closes them; the
// destructor also restores the limit. For tests of servers whose accept loop meets EMFILE.
//
// Not under the sanitizers (REAGENT_TEST_SANITIZED): UBSan's vptr check opens a pipe to learn whether it
// may read an object's vtable, and with no descriptor free it reports every virtual call it has not yet
// cached as a call on an object with an invalid vptr. A false report, shown with a five-line program.

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define REAGENT_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REAGENT_TEST_SANITIZED 1
#endif
#endif

namespace reagent::test {

class DescriptorExhaustion {
  public:
    DescriptorExhaustion() {
        if (::getrlimit(RLIMIT_NOFILE, &saved_) != 0) {
            throw std::runtime_error("getrlimit failed");
        }
        rlimit lowered = saved_;
        lowered.rlim_cur = static_cast<rlim_t>(highestOpen() + 16);
        if (lowered.rlim_cur < saved_.rlim_cur && ::setrlimit(RLIMIT_NOFILE, &lowered) != 0) {
            throw std::runtime_error("setrlimit failed");
        }
        for (;;) {
            const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                if (errno != EMFILE) {
                    throw std::runtime_error("open /dev/null failed other than with EMFILE");
                }
                break;
            }
            fillers_.push_back(fd);
        }
    }
    DescriptorExhaustion(const DescriptorExhaustion&) = delete;
    DescriptorExhaustion& operator=(const DescriptorExhaustion&) = delete;
    ~DescriptorExhaustion() {
        release();
        (void)::setrlimit(RLIMIT_NOFILE, &saved_);
    }

    /// Closes the descriptors taken: accepting works again.
    void release() noexcept {
        for (const int fd : fillers_) {
            ::close(fd);
        }
        fillers_.clear();
    }

  private:
    static int highestOpen() {
        int highest = 2;
        if (DIR* dir = ::opendir("/proc/self/fd")) {
            while (const dirent* entry = ::readdir(dir)) {
                const int fd = std::atoi(entry->d_name);
                highest = fd > highest ? fd : highest;
            }
            ::closedir(dir);
        }
        return highest;
    }

    rlimit saved_{};
    std::vector<int> fillers_;
};

/// CPU time this thread has used so far.
inline std::chrono::nanoseconds threadCpuTime() {
    timespec now{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

}  // namespace reagent::test

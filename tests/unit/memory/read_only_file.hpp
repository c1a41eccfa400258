#pragma once
// Makes a file unwritable for the duration of a test, even for root: mode 0444 and, when the process may
// ignore modes (root), the file system's immutable flag. `active()` is false when neither holds, and the
// test should then skip its check rather than pass vacuously.

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

namespace reagent::test {

class ReadOnlyFile {
  public:
    explicit ReadOnlyFile(std::string path) : path_(std::move(path)) {
        ::chmod(path_.c_str(), 0444);
        if (::geteuid() != 0) {
            active_ = true;
            return;
        }
        active_ = setImmutable(true);
    }
    ReadOnlyFile(const ReadOnlyFile&) = delete;
    ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
    ~ReadOnlyFile() {
        if (::geteuid() == 0 && active_) {
            (void)setImmutable(false);
        }
        ::chmod(path_.c_str(), 0644);
    }

    /// Whether writes to the file now fail.
    [[nodiscard]] bool active() const noexcept { return active_; }

  private:
    bool setImmutable(bool on) const {
        const int fd = ::open(path_.c_str(), O_RDONLY);
        if (fd < 0) {
            return false;
        }
        int flags = 0;
        bool ok = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
        flags = on ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
        ok = ok && ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
        ::close(fd);
        return ok;
    }

    std::string path_;
    bool active_ = false;
};

}  // namespace reagent::test

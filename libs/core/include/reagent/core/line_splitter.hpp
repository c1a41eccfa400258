#pragma once
/// \file
/// \brief `LineSplitter`: newline-delimited framing of a byte stream, with a bound on a line (sans-io).

#include <cstddef>
#include <string>
#include <string_view>

namespace reagent {

/// \brief Splits bytes, fed as they arrive, into lines of at most `limit` bytes.
///
/// A line ends at `\n`; a `\r` before it is removed, and a line of only spaces and tabs is skipped (as
/// newline-delimited JSON readers do). What happens to a line longer than the limit is the reader's
/// choice: `LongLines::drop` forgets its bytes as they come (no memory grows) and reports its size when it
/// ends, then goes on with the next line; `LongLines::stop` stops at the first byte over the limit, and
/// the stream cannot be read further (a reader that cannot trust what follows).
class LineSplitter {
  public:
    enum class LongLines { drop, stop };

    explicit LineSplitter(std::size_t limit, LongLines longLines = LongLines::drop)
        : limit_(limit), longLines_(longLines) {}

    /// \brief Feeds `data`: `onLine(std::string_view)` for each line it completes, `onTooLong(size)` for
    /// each dropped line it ends. False once stopped at a line over the limit (with `LongLines::stop`);
    /// nothing more is read then.
    template <class OnLine, class OnTooLong>
    bool feed(std::string_view data, OnLine& onLine, OnTooLong& onTooLong) {
        while (!data.empty() && !stopped_) {
            const std::size_t newline = data.find('\n');
            const std::string_view piece = data.substr(0, newline);
            if (dropped_ > 0) {
                dropped_ += piece.size();
            } else if (line_.size() + piece.size() > limit_) {
                dropped_ = line_.size() + piece.size();
                line_.clear();
                if (longLines_ == LongLines::stop) {
                    stopped_ = true;
                    return false;
                }
            } else {
                line_.append(piece);
            }
            if (newline == std::string_view::npos) {
                break;
            }
            data.remove_prefix(newline + 1);
            end(onLine, onTooLong);
        }
        return !stopped_;
    }

    /// \brief The input ended: a last line without its newline still counts.
    template <class OnLine, class OnTooLong>
    void finish(OnLine& onLine, OnTooLong& onTooLong) {
        if (!stopped_) {
            end(onLine, onTooLong);
        }
    }

  private:
    template <class OnLine, class OnTooLong>
    void end(OnLine& onLine, OnTooLong& onTooLong) {
        if (dropped_ > 0) {
            onTooLong(dropped_);
        } else {
            if (!line_.empty() && line_.back() == '\r') {
                line_.pop_back();
            }
            if (line_.find_first_not_of(" \t") != std::string::npos) {
                onLine(std::string_view(line_));
            }
        }
        dropped_ = 0;
        line_.clear();
    }

    std::size_t limit_;
    LongLines longLines_;
    std::string line_;
    std::size_t dropped_ = 0;
    bool stopped_ = false;
};

}  // namespace reagent

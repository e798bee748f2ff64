#include "core/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace attn {

std::string write_file_atomically(const std::string& path, const std::string& content) {
  if (path.empty()) return "the output path is empty";
  std::string templ = path + ".tmp.XXXXXX";
  std::vector<char> name(templ.begin(), templ.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) return "cannot write '" + path + "': " + std::strerror(errno);
  ::fchmod(fd, 0644);  // mkstemp creates 0600; an export is an ordinary file
  const char* data = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      std::remove(name.data());
      return "cannot write '" + path + "': " + why;
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(name.data());
    return "cannot write '" + path + "': " + why;
  }
  if (std::rename(name.data(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(name.data());
    return "cannot write '" + path + "': " + why;
  }
  return "";
}

}  // namespace attn

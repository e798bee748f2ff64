#include "png_image.h"

#include <zlib.h>

#include <cstdlib>

namespace {

uint32_t be32(const std::string& s, size_t at) {
  return (uint32_t(uint8_t(s[at])) << 24) | (uint32_t(uint8_t(s[at + 1])) << 16) | (uint32_t(uint8_t(s[at + 2])) << 8) |
         uint32_t(uint8_t(s[at + 3]));
}

int paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

}  // namespace

RgbImage read_png(const std::string& bytes) {
  RgbImage img;
  auto fail = [&img](const std::string& why) {
    img.error = why;
    return img;
  };
  if (bytes.size() < 33 || bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return fail("not a PNG");
  std::string idat;
  int channels = 0;
  for (size_t at = 8; at + 12 <= bytes.size();) {
    const uint32_t len = be32(bytes, at);
    const std::string type = bytes.substr(at + 4, 4);
    if (at + 12 + len > bytes.size()) return fail("truncated chunk " + type);
    if (type == "IHDR") {
      img.width = int(be32(bytes, at + 8));
      img.height = int(be32(bytes, at + 12));
      const int depth = uint8_t(bytes[at + 16]), color = uint8_t(bytes[at + 17]), interlace = uint8_t(bytes[at + 20]);
      channels = color == 2 ? 3 : color == 6 ? 4 : 0;
      if (depth != 8 || channels == 0 || interlace != 0) return fail("unsupported PNG format");
    } else if (type == "IDAT") {
      idat += bytes.substr(at + 8, len);
    }
    at += 12 + len;
  }
  if (channels == 0 || img.width <= 0 || img.height <= 0) return fail("no IHDR");
  const size_t stride = size_t(img.width) * channels;
  std::vector<uint8_t> raw((stride + 1) * img.height);
  uLongf raw_len = raw.size();
  if (uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK ||
      raw_len != raw.size())
    return fail("bad IDAT data");
  std::vector<uint8_t> prev(stride, 0), cur(stride);
  img.rgb.reserve(size_t(img.width) * img.height * 3);
  for (int y = 0; y < img.height; ++y) {
    const uint8_t* line = raw.data() + y * (stride + 1);
    const int filter = line[0];
    if (filter > 4) return fail("bad filter type");
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= size_t(channels) ? cur[i - channels] : 0, b = prev[i],
                c = i >= size_t(channels) ? prev[i - channels] : 0;
      const int pred = filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : filter == 4 ? paeth(a, b, c) : 0;
      cur[i] = uint8_t(line[1 + i] + pred);
    }
    for (int x = 0; x < img.width; ++x)
      for (int k = 0; k < 3; ++k) img.rgb.push_back(cur[size_t(x) * channels + k]);
    prev.swap(cur);
  }
  return img;
}

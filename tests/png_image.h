#pragma once
// A minimal PNG reader for the tests: 8-bit RGB or RGBA, not interlaced (what Chromium writes).
#include <cstdint>
#include <string>
#include <vector>

struct RgbImage {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // width * height * 3
  std::string error;         // empty when decoded
};

RgbImage read_png(const std::string& bytes);

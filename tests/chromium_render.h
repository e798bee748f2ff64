#pragma once
// One headless Chromium run with a fresh profile: the DOM after load and a screenshot, decoded.
#include <string>

#include "png_image.h"

struct Render {
  int status = -1;
  std::string dom;
  RgbImage shot;
  size_t png_bytes = 0;
};

// `env` is put before the command ("FONTCONFIG_FILE=... "), for a render with other fonts.
Render render_in_chromium(const std::string& html_path, int width, int height, const std::string& env = "");

bool chromium_installed();

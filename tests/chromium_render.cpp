#include "chromium_render.h"

#include <cstdlib>
#include <filesystem>

#include "run_cli.h"

bool chromium_installed() { return std::system("command -v chromium >/dev/null 2>&1") == 0; }

Render render_in_chromium(const std::string& html_path, int width, int height, const std::string& env) {
  const std::string dir = temp_dir();
  const std::string png = dir + "/shot.png", dom = dir + "/dom.html";
  const std::string cmd =
      env +
      "timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync --user-data-dir='" +
      dir + "/profile' --screenshot='" + png + "' --window-size=" + std::to_string(width) + "," +
      std::to_string(height) + " --dump-dom 'file://" + html_path + "' >'" + dom + "' 2>'" + dir + "/chromium.err'";
  Render r;
  r.status = std::system(cmd.c_str());
  r.dom = read_text_file(dom);
  const std::string bytes = read_text_file(png);
  r.png_bytes = bytes.size();
  r.shot = read_png(bytes);
  std::error_code ignored;
  std::filesystem::remove_all(dir + "/profile", ignored);
  return r;
}

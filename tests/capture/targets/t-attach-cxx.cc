// t-attach-cxx — the C++ program test-attach attaches to: 8 std::thread
// workers allocate in a loop with new/delete, std::string and
// std::vector (libstdc++'s operator new reaches malloc through its own
// PLT: its slots are the ones patched) until the main thread, which
// waits for DIR/go-1 after creating DIR/ready-1, makes 3000 vectors of
// 777 bytes, frees them and stops them. Prints what is the same for every
// run.
//
//   t-attach-cxx DIR
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

static std::atomic<bool> stop_flag (false);

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      std::fprintf (stderr, "usage: t-attach-cxx DIR\n");
      return 2;
    }
  std::string dir = argv[1];
  std::vector<std::thread> workers;
  std::vector<unsigned> results (8);
  for (unsigned w = 0; w < 8; w++)
    workers.emplace_back ([w, &results] {
      unsigned long n = 0;
      while (!stop_flag.load ())
        {
          auto s = std::make_unique<std::string> (16 + (n * 7 + w) % 200, 'a' + (char) w);
          std::vector<int> v ((n % 50) + 1, (int) w);
          n++;
          if (s->at (0) != 'a' + (char) w || v.back () != (int) w)
            results[w] = 99;
        }
      if (results[w] != 99)
        results[w] = w;
    });
  std::FILE *f = std::fopen ((dir + "/ready-1").c_str (), "w");
  if (f != nullptr)
    std::fclose (f);
  while (access ((dir + "/go-1").c_str (), F_OK) != 0)
    std::this_thread::sleep_for (std::chrono::milliseconds (1));
  {
    std::vector<std::vector<char>> blocks;
    for (int i = 0; i < 3000; i++)
      blocks.emplace_back (777, (char) i);
    unsigned long sum = 0;
    for (const auto &b : blocks)
      sum += (unsigned char) b[0];
    std::printf ("blocks: %lu\n", sum);
  }
  stop_flag.store (true);
  for (auto &t : workers)
    t.join ();
  for (unsigned w = 0; w < 8; w++)
    std::printf ("worker %u: %u\n", w, results[w]);
  return 5;
}

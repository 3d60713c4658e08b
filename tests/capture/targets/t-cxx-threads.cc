// t-cxx-threads — a multithreaded C++ program: std::thread workers filling
// and sorting vectors of strings behind a mutex-protected map; prints a
// deterministic checksum.
#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

int
main ()
{
  std::map<int, size_t> results;
  std::mutex lock;
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; w++)
    workers.emplace_back ([w, &results, &lock] {
      std::vector<std::string> v;
      for (int i = 0; i < 20000; i++)
        v.push_back (std::to_string ((i * 7919 + w) % 10007));
      std::sort (v.begin (), v.end ());
      size_t sum = 0;
      for (const auto &s : v)
        sum += s.size ();
      std::lock_guard<std::mutex> g (lock);
      results[w] = sum;
    });
  for (auto &t : workers)
    t.join ();
  size_t total = 0;
  for (const auto &r : results)
    total += r.second;
  std::printf ("checksum %zu\n", total);
  return 0;
}

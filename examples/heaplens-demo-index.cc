// heaplens-demo-index.cc — a word → documents index built with C++ new.
#include "heaplens-demo-index.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace heaplens_demo {

class WordIndex
{
public:
  void add (size_t document, const char *text, size_t length)
  {
    size_t start = 0;
    for (size_t i = 0; i <= length; i++)
      {
        if (i == length || text[i] == ' ')
          {
            if (i - start >= 3)
              {
                std::string word (text + start, i - start < 8 ? i - start : 8);
                std::vector<size_t> &postings = words_[word];
                if (postings.empty () || postings.back () != document)
                  postings.push_back (document);
              }
            start = i + 1;
          }
      }
  }

  const std::vector<size_t> *find (const char *word) const
  {
    auto it = words_.find (word);
    return it == words_.end () ? nullptr : &it->second;
  }

private:
  std::map<std::string, std::vector<size_t>> words_;
};

} // namespace heaplens_demo

struct HlDemoIndex
{
  heaplens_demo::WordIndex words;
};

extern "C" HlDemoIndex *
hl_demo_index_new (void)
{
  return new HlDemoIndex ();
}

extern "C" void
hl_demo_index_add (HlDemoIndex *index, size_t document, const char *text, size_t length)
{
  index->words.add (document, text, length);
}

extern "C" size_t *
hl_demo_index_lookup (HlDemoIndex *index, const char *word, size_t *n_out)
{
  const std::vector<size_t> *postings = index->words.find (word);
  size_t n = postings ? postings->size () : 0;
  size_t *out = static_cast<size_t *> (malloc ((n ? n : 1) * sizeof (size_t)));
  if (out == nullptr)
    abort ();
  for (size_t i = 0; i < n; i++)
    out[i] = (*postings)[i];
  *n_out = n;
  return out;
}

extern "C" void
hl_demo_index_free (HlDemoIndex *index)
{
  delete index;
}

#pragma once
// The catalogs' citation rule (docs/hardware.md "Citations"), shared by the hardware and the
// model catalog tests. Every data line (`key: value`, identifiers such as `name` excepted) ends
// in a comment that starts with one of
//   # source: ...   (or `# source (3rd-party): ...`) naming where the value was read, by at least one of
//       - a URL or web address: a token `host.tld/...` (scheme optional), e.g. https://glennklockwood.com/garden/processors/B300;
//       - a repository path: `github|gitcode|hf|huggingface <owner>/<repo> [<path in it>]`,
//         e.g. `github mlcommons/inference_results_v4.1 closed/NVIDIA/systems/H200-SXM-141GBx8_TRT_MaxQ.json`;
//       - a section of the shared reference: `shared/reference/<file>.md §<section>`;
//       - a named primary document: an arXiv id, or a datasheet, whitepaper, model card, README,
//         technical report, user guide, product brief or paper named by its vendor or model;
//       - a back-reference to a source cited earlier in the same file: the word `same`, or a word
//         (4+ letters) of an earlier line's URL or repository path (`colibri` after
//         `github JustVugg/colibri docs/kimi_k3.md`, `MindSpeed` after a gitcode.com/Ascend/MindSpeed-RL URL);
//   # derived: <how it follows from other values or cited figures>   (3+ words)
//   # assumed: <the reasoning>                                        (4+ words)
// and in any of them a file name (`*.md`, `*.yaml`, `*.json`, `*.pdf`, `*.html`, ... or a path with
// a `/` ending in a source extension) that is not inside a URL, not right after the repository it
// belongs to and not under shared/reference/ is a path in this repository and must exist there
// (so `see NOTES.md` fails: there is no NOTES.md). The project never reads the reference folder; the
// reference sections are checked for form only.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace agentsim::test_support {

struct CitationFailure {
  std::string where;  // file:line
  std::string line;
  std::string why;
};

struct CitationScan {
  int data_lines = 0;
  int sourced = 0, derived = 0, assumed = 0;
  std::vector<CitationFailure> failures;
};

namespace citation_detail {

inline std::string trim_token(const std::string& t) {
  const std::string punct = "()[]{}\",;'`";
  std::size_t b = 0, e = t.size();
  while (b < e && punct.find(t[b]) != std::string::npos) ++b;
  while (e > b && punct.find(t[e - 1]) != std::string::npos) --e;
  return t.substr(b, e - b);
}

inline std::vector<std::string> tokens(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  std::string t;
  while (in >> t) out.push_back(trim_token(t));
  return out;
}

inline std::size_t word_count(const std::string& text) {
  std::istringstream in(text);
  std::size_t n = 0;
  std::string t;
  while (in >> t) ++n;
  return n;
}

inline std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Patterns {
  std::regex url{R"(^(https?://)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/\S*$)"};
  std::regex repo_host{R"(^(github|gitcode|hf|huggingface)$)", std::regex::icase};
  std::regex repo{R"(^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$)"};
  std::regex repo_url{
      R"(^(https?://)?(www\.)?(github\.com|huggingface\.co|gitcode\.com|raw\.githubusercontent\.com)/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/?$)"};
  std::regex path{
      R"(^([A-Za-z0-9_.-]+/)*[A-Za-z0-9_.-]*[A-Za-z0-9_-]\.(md|yaml|yml|json|txt|csv|pdf|html)$|^([A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]*[A-Za-z0-9_-]\.(py|cpp|hpp|h)$)"};
  std::regex reference{R"(shared/reference/[A-Za-z0-9_-]+\.md\s+§\s*\S+)"};
  std::regex document{
      R"((^|[^A-Za-z])(datasheet|data sheet|whitepaper|white paper|model card|README|technical report|tech report|user guide|product brief|paper)([^A-Za-z]|$)|arXiv:? ?[0-9]{4}\.[0-9]{4,5})",
      std::regex::icase};
  std::regex marker{R"(^\s*(source(?: \(3rd-party\))?|derived|assumed):\s*(.*)$)"};
  std::regex same{R"((^|[^A-Za-z])same([^A-Za-z]|$)|^as )", std::regex::icase};
  std::regex word{R"([A-Za-z][A-Za-z0-9]{3,})"};
};

inline const Patterns& patterns() {
  static const Patterns p;
  return p;
}

// Words generic to addresses, never a name for a source.
inline bool stop_word(const std::string& w) {
  static const std::set<std::string> stop{
      "http", "https", "www", "github", "githubusercontent", "gitcode", "com", "org", "net", "blob", "main",
      "master", "tree", "docs", "html", "json", "yaml", "config", "configs", "model", "models", "page", "wiki",
      "blog", "index", "latest", "readme", "raw", "refs", "src", "reference", "huggingface", "large", "language",
      "resolve", "files", "commit", "pull", "issues", "blame"};
  return stop.count(w) > 0;
}

inline bool is_repo_at(const std::vector<std::string>& t, std::size_t i) {
  const Patterns& p = patterns();
  return i > 0 && std::regex_match(t[i - 1], p.repo_host) && std::regex_match(t[i], p.repo);
}

// Whether the text names a source itself (not by back-reference).
inline bool cites(const std::string& text, const std::vector<std::string>& t) {
  const Patterns& p = patterns();
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (std::regex_match(t[i], p.url) || is_repo_at(t, i)) return true;
  }
  return std::regex_search(text, p.reference) || std::regex_search(text, p.document);
}

// Names a cited line gives later lines: the words of its URLs and repository paths.
inline void add_names(const std::vector<std::string>& t, std::set<std::string>& names) {
  const Patterns& p = patterns();
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!(std::regex_match(t[i], p.url) || std::regex_match(t[i], p.repo_url) || is_repo_at(t, i))) continue;
    for (std::sregex_iterator w(t[i].begin(), t[i].end(), p.word), end; w != end; ++w) {
      const std::string s = lower(w->str());
      if (!stop_word(s)) names.insert(s);
    }
  }
}

}  // namespace citation_detail

// Checks one comment (the text after '#'). `earlier` is whether an earlier line of the file
// cited a source; `names` the words its URLs and repository paths give. Returns "" when it
// passes, else why not; `kind` is set to source, derived or assumed.
inline std::string check_citation(const std::string& comment, const std::filesystem::path& root, bool earlier,
                                  const std::set<std::string>& names, std::string* kind = nullptr,
                                  bool* cited = nullptr) {
  using namespace citation_detail;
  const Patterns& p = patterns();
  if (cited) *cited = false;
  std::smatch m;
  if (!std::regex_match(comment, m, p.marker)) return "no `source:`, `derived:` or `assumed:` comment";
  const std::string k = m[1].str().rfind("source", 0) == 0 ? "source" : m[1].str();
  const std::string text = m[2].str();
  if (kind) *kind = k;
  const std::vector<std::string> t = tokens(text);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!std::regex_match(t[i], p.path) || std::regex_match(t[i], p.url) || is_repo_at(t, i)) continue;
    if (t[i].rfind("shared/reference/", 0) == 0) continue;
    const bool in_repo = i > 0 && (std::regex_match(t[i - 1], p.repo_url) || is_repo_at(t, i - 1));
    if (!in_repo && !std::filesystem::exists(root / t[i])) {
      return "names " + t[i] + ", which is neither in a cited repository nor in this one";
    }
  }
  if (k == "assumed") return word_count(text) >= 4 ? "" : "`assumed:` needs its reasoning (4+ words)";
  if (k == "derived") return word_count(text) >= 3 ? "" : "`derived:` needs how it is derived (3+ words)";
  if (cites(text, t)) {
    if (cited) *cited = true;
    return "";
  }
  if (earlier && std::regex_search(text, p.same)) return "";
  for (std::sregex_iterator w(text.begin(), text.end(), p.word), end; w != end; ++w) {
    if (names.count(lower(w->str()))) return "";
  }
  return "`source:` names no URL, repository path, shared/reference section, named document or earlier source";
}

// Scans the data lines of every *.yaml under `dirs` (relative to `root`).
inline CitationScan scan_citations(const std::filesystem::path& root, const std::vector<std::string>& dirs,
                                   const std::set<std::string>& identifiers) {
  const std::regex scalar(R"(^\s*([A-Za-z0-9_]+):\s*([^#\s][^#]*?)\s*(#(.*))?$)");
  CitationScan scan;
  for (const std::string& dir : dirs) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(root / dir)) {
      if (e.path().extension() == ".yaml") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f);
      std::string line;
      int n = 0;
      bool earlier = false;
      std::set<std::string> names;
      while (std::getline(in, line)) {
        ++n;
        std::smatch m;
        if (!std::regex_match(line, m, scalar) || identifiers.count(m[1].str())) continue;
        ++scan.data_lines;
        const std::string comment = m[4].str();
        std::string kind;
        bool cited = false;
        const std::string why = check_citation(comment, root, earlier, names, &kind, &cited);
        if (!why.empty()) {
          scan.failures.push_back({f.filename().string() + ":" + std::to_string(n), line, why});
          continue;
        }
        if (kind == "source") ++scan.sourced;
        if (kind == "derived") ++scan.derived;
        if (kind == "assumed") ++scan.assumed;
        if (cited) {
          earlier = true;
          citation_detail::add_names(citation_detail::tokens(comment), names);
        }
      }
    }
  }
  return scan;
}

}  // namespace agentsim::test_support

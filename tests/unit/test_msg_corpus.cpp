// The reader of msgrec's message corpus (perftest/msgrec/msg_corpus.hpp): the index format of
// perftest/msgrec/README.md, every malformed index rejected with its line, the data file checked
// against the index, and applications found in a corpus directory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "msg_corpus.hpp"

namespace fs = std::filesystem;
using msgcorpus::Elem;

namespace
{

const char *const kHeader = "# msgrec index 1: call op elem bytes offset peer tag\n";

bool parse(const std::string &text, msgcorpus::RankIndex *out, std::string *error)
{
    std::istringstream in(text);
    return msgcorpus::parse_index(in, out, error);
}

// The error for an index made of the header and `body`, or "" if it parses.
std::string error_of(const std::string &body)
{
    msgcorpus::RankIndex idx;
    std::string error;
    return parse(kHeader + body, &idx, &error) ? "" : error;
}

// A fresh directory under the system's temporary directory, removed with the object.
class TempDir
{
  public:
    TempDir()
    {
        std::string pattern = (fs::temp_directory_path() / "msgcorpus-XXXXXX").string();
        path_ = mkdtemp(pattern.data()) ? pattern : "";
    }
    ~TempDir()
    {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path &path() const { return path_; }

  private:
    fs::path path_;
};

void write_file(const fs::path &p, const std::string &content)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
}

} // namespace

TEST(MsgCorpusIndex, ParsesRecordsAndSummary)
{
    msgcorpus::RankIndex idx;
    std::string error;
    ASSERT_TRUE(parse(std::string(kHeader) + "12 isend f64 38400 0 1 1024\n" +
                          "12 isend f32 400 38400 2 1024\n" +
                          "40 allreduce i64 8192 38800 -1 -1\n" + "41 send bytes 5 46992 3 0\n" +
                          "# end calls=41 recorded=4 recorded_bytes=46997 small=7 small_bytes=99 "
                          "over_limit=1 over_limit_bytes=70000 unsampled=2\n",
                      &idx, &error))
        << error;
    ASSERT_EQ(idx.messages.size(), 4u);
    const msgcorpus::Message &m = idx.messages[0];
    EXPECT_EQ(m.call, 12u);
    EXPECT_EQ(m.op, "isend");
    EXPECT_EQ(m.elem, Elem::F64);
    EXPECT_EQ(m.bytes, 38400u);
    EXPECT_EQ(m.offset, 0u);
    EXPECT_EQ(m.peer, 1);
    EXPECT_EQ(m.tag, 1024);
    EXPECT_EQ(idx.messages[1].elem, Elem::F32);
    EXPECT_EQ(idx.messages[2].elem, Elem::I64);
    EXPECT_EQ(idx.messages[2].peer, -1);
    EXPECT_EQ(idx.messages[3].elem, Elem::Bytes);
    EXPECT_EQ(idx.messages[3].offset, 46992u);
    ASSERT_TRUE(idx.summary.present);
    EXPECT_EQ(idx.summary.calls, 41u);
    EXPECT_EQ(idx.summary.recorded, 4u);
    EXPECT_EQ(idx.summary.recorded_bytes, 46997u);
    EXPECT_EQ(idx.summary.small, 7u);
    EXPECT_EQ(idx.summary.small_bytes, 99u);
    EXPECT_EQ(idx.summary.over_limit, 1u);
    EXPECT_EQ(idx.summary.over_limit_bytes, 70000u);
    EXPECT_EQ(idx.summary.unsampled, 2u);
}

TEST(MsgCorpusIndex, AnIndexWithoutSummaryIsARankThatDidNotFinish)
{
    msgcorpus::RankIndex idx;
    std::string error;
    ASSERT_TRUE(parse(std::string(kHeader) + "1 send i32 4096 0 1 0\n", &idx, &error)) << error;
    EXPECT_EQ(idx.messages.size(), 1u);
    EXPECT_FALSE(idx.summary.present);
}

TEST(MsgCorpusIndex, ElementNamesRoundTripWithTheirWidths)
{
    const std::pair<Elem, size_t> all[] = {
        {Elem::F64, 8}, {Elem::F32, 4}, {Elem::I32, 4}, {Elem::I64, 8}, {Elem::Bytes, 1}};
    for (auto [e, width] : all) {
        Elem back;
        ASSERT_TRUE(msgcorpus::parse_elem(msgcorpus::elem_name(e), &back));
        EXPECT_EQ(back, e);
        EXPECT_EQ(msgcorpus::elem_width(e), width);
    }
    Elem e;
    EXPECT_FALSE(msgcorpus::parse_elem("double", &e));
}

TEST(MsgCorpusIndex, RejectsAFileWithoutTheHeader)
{
    msgcorpus::RankIndex idx;
    std::string error;
    EXPECT_FALSE(parse("1 send f64 8 0 1 0\n", &idx, &error));
    EXPECT_NE(error.find("line 1"), std::string::npos) << error;
    EXPECT_FALSE(parse("", &idx, &error));
}

TEST(MsgCorpusIndex, RejectsMalformedRecordsWithTheirLine)
{
    EXPECT_NE(error_of("1 send f64 8 0 1\n").find("line 2: want 7 fields"), std::string::npos);
    EXPECT_NE(error_of("1 send f64 8 0 1 0 9\n").find("want 7 fields"), std::string::npos);
    EXPECT_NE(error_of("1 send double 8 0 1 0\n").find("unknown element type"), std::string::npos);
    EXPECT_NE(error_of("x send f64 8 0 1 0\n").find("malformed number"), std::string::npos);
    EXPECT_NE(error_of("1 send f64 -8 0 1 0\n").find("malformed number"), std::string::npos);
    EXPECT_NE(error_of("1 send f64 8 0 -2 0\n").find("malformed number"), std::string::npos);
    EXPECT_NE(error_of("1 send f64 8 0 1 0\n2 send f64 12 8 1 0\n")
                  .find("line 3: size 12 is not a positive multiple of the f64 size"),
              std::string::npos);
    EXPECT_NE(error_of("1 send i32 0 0 1 0\n").find("not a positive multiple"), std::string::npos);
}

TEST(MsgCorpusIndex, RejectsOffsetsThatDoNotContinueThePreviousPayload)
{
    EXPECT_NE(error_of("1 send f64 8 8 1 0\n").find("does not follow"), std::string::npos);
    EXPECT_NE(error_of("1 send f64 8 0 1 0\n2 send f64 8 0 1 0\n").find("line 3"),
              std::string::npos);
    // a size that would wrap the next offset around cannot slip past the data file's size check
    EXPECT_NE(
        error_of("1 send f64 8 0 1 0\n2 send f64 18446744073709551608 8 1 0\n").find("runs past"),
        std::string::npos);
}

TEST(MsgCorpusIndex, RejectsBadSummaryLines)
{
    EXPECT_NE(error_of("# end calls=1 recorded=0\n").find("malformed summary"), std::string::npos);
    const std::string end = "# end calls=1 recorded=0 recorded_bytes=0 small=0 small_bytes=0 "
                            "over_limit=0 over_limit_bytes=0 unsampled=0\n";
    EXPECT_EQ(error_of(end), "");
    EXPECT_NE(error_of(end + end).find("second summary"), std::string::npos);
    EXPECT_NE(error_of(end + "1 send f64 8 0 1 0\n").find("after the summary"), std::string::npos);
}

TEST(MsgCorpusFiles, LoadsPayloadsAndChecksTheDataFileAgainstTheIndex)
{
    TempDir dir;
    ASSERT_FALSE(dir.path().empty());
    std::string data(24, '\0');
    for (size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<char>(i);
    write_file(dir.path() / "rank00000.idx",
               std::string(kHeader) + "1 send f64 16 0 1 0\n2 send i32 8 16 1 0\n");
    write_file(dir.path() / "rank00000.dat", data);
    msgcorpus::RankFiles files{0, (dir.path() / "rank00000.idx").string(),
                               (dir.path() / "rank00000.dat").string()};
    msgcorpus::LoadedRank rank;
    std::string error;
    ASSERT_TRUE(msgcorpus::load_rank(files, &rank, &error)) << error;
    ASSERT_EQ(rank.index.messages.size(), 2u);
    EXPECT_EQ(rank.payload(rank.index.messages[1])[0], 16);
    EXPECT_EQ(rank.payload(rank.index.messages[1])[7], 23);

    write_file(dir.path() / "rank00000.dat", data.substr(0, 20)); // shorter than the index says
    EXPECT_FALSE(msgcorpus::load_rank(files, &rank, &error));
    EXPECT_NE(error.find("the index needs 24"), std::string::npos) << error;

    write_file(dir.path() / "rank00000.idx", "not an index\n");
    EXPECT_FALSE(msgcorpus::load_rank(files, &rank, &error));
    EXPECT_NE(error.find("rank00000.idx"), std::string::npos) << error;
}

TEST(MsgCorpusFiles, FindsOneApplicationOrEverySubdirectoryThatHoldsOne)
{
    TempDir dir;
    ASSERT_FALSE(dir.path().empty());
    const std::string index = std::string(kHeader);
    for (const char *app : {"lulesh", "cloverleaf"})
        for (const char *rank : {"rank00001", "rank00000"}) {
            write_file(dir.path() / app / (std::string(rank) + ".idx"), index);
            write_file(dir.path() / app / (std::string(rank) + ".dat"), "");
        }
    write_file(dir.path() / "notes" / "readme.txt", "not an application");

    std::vector<msgcorpus::App> apps;
    std::string error;
    ASSERT_TRUE(msgcorpus::find_apps(dir.path().string(), &apps, &error)) << error;
    ASSERT_EQ(apps.size(), 2u);
    EXPECT_EQ(apps[0].name, "cloverleaf");
    EXPECT_EQ(apps[1].name, "lulesh");
    ASSERT_EQ(apps[1].ranks.size(), 2u);
    EXPECT_EQ(apps[1].ranks[0].rank, 0);
    EXPECT_EQ(apps[1].ranks[1].rank, 1);
    EXPECT_EQ(fs::path(apps[1].ranks[1].data_path).filename(), "rank00001.dat");

    ASSERT_TRUE(msgcorpus::find_apps((dir.path() / "lulesh").string() + "/", &apps, &error));
    ASSERT_EQ(apps.size(), 1u);
    EXPECT_EQ(apps[0].name, "lulesh");

    EXPECT_FALSE(msgcorpus::find_apps((dir.path() / "notes").string(), &apps, &error));
    EXPECT_NE(error.find("no rank*.idx"), std::string::npos) << error;
    EXPECT_FALSE(msgcorpus::find_apps((dir.path() / "missing").string(), &apps, &error));
}

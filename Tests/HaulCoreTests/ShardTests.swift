import Foundation
import HaulCore
import Testing

@Suite("Shards: disjoint, covering, stable")
struct ShardTests {
  func entry(_ i: Int) -> ManifestEntry {
    ManifestEntry(
      line: i, text: "", url: URL(string: "http://h/f\(i)")!, path: "dir/f\(i).bin")
  }

  @Test func four_shards_cover_every_entry_exactly_once() {
    let shards = (0..<4).map { Shard(index: $0, count: 4)! }
    var counts = [0, 0, 0, 0]
    for i in 0..<10_000 {
      let owners = shards.filter { $0.contains(entry(i)) }
      #expect(owners.count == 1)
      counts[owners[0].index] += 1
    }
    #expect(counts.allSatisfy { $0 > 2_000 && $0 < 3_000 })
  }

  @Test func the_key_ignores_the_spelling_of_the_path() {
    var a = entry(1)
    a.path = "./dir//f1.bin"
    #expect(Shard.key(of: a) == Shard.key(of: entry(1)))
  }

  @Test func the_hash_is_fnv1a_64() {
    #expect(Shard.hash("") == 0xcbf2_9ce4_8422_2325)
    #expect(Shard.hash("a") == 0xaf63_dc4c_8601_ec8c)
  }

  @Test func parses_k_of_n() {
    #expect(Shard("2/4") == Shard(index: 2, count: 4))
    #expect(Shard("4/4") == nil)
    #expect(Shard("-1/4") == nil)
    #expect(Shard("1/0") == nil)
    #expect(Shard("x") == nil)
  }

  @Test func names_differing_only_in_case_spread_over_power_of_two_shards() {
    let shards = (0..<4).map { Shard(index: $0, count: 4)! }
    var used = Set<Int>()
    for name in ["data.bin", "Data.bin", "DATA.bin", "dAta.bin", "daTa.bin", "datA.bin"] {
      var e = entry(0)
      e.path = name
      used.insert(shards.first { $0.contains(e) }!.index)
    }
    #expect(used.count > 1)
  }
}

import java.io.BufferedReader;
import java.io.FileReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs Apache Kafka's own sticky assignors over the scenario file written by bench-peer.ts, step
 * by step, each assignor carrying its own previous assignment as the members' owned partitions
 * (as a real group would), and prints one "result" line per step: median compute time of the
 * warmed repeats, partitions moved and the spread of partition counts.
 */
public final class PeerBench {
  private record Step(String kind, Map<String, List<String>> members) {}

  /** Racks as in Kafka's assignor tests: one broker per rack; 0 racks means none. */
  private record Case(
      String id, int repeats, int warmups, Map<String, Integer> topics, List<Step> steps, int racks, int rf) {}

  public static void main(String[] args) throws IOException {
    for (Case c : read(args[0])) {
      run(c, "sticky", StickyAssignor::new);
      run(c, "cooperative-sticky", CooperativeStickyAssignor::new);
    }
  }

  private interface Factory {
    AbstractStickyAssignor create();
  }

  private static void run(Case c, String name, Factory factory) {
    // Whole sequences first, so the JIT has compiled every path the measured runs take.
    for (int w = 0; w < c.warmups(); w++) sequence(c, factory, false, name);
    sequence(c, factory, true, name);
  }

  private static void sequence(Case c, Factory factory, boolean report, String name) {
    Map<String, List<TopicPartition>> previous = new HashMap<>();
    int generation = 1;
    for (int s = 0; s < c.steps().size(); s++) {
      Step step = c.steps().get(s);
      Map<String, ByteBuffer> userData = new HashMap<>();
      for (Map.Entry<String, List<String>> m : step.members().entrySet()) {
        List<TopicPartition> owned = previous.getOrDefault(m.getKey(), List.of());
        userData.put(m.getKey(), ownUserData(factory, m.getKey(), m.getValue(), owned, generation));
      }
      long[] nanos = new long[c.repeats()];
      Map<String, List<TopicPartition>> result = null;
      for (int r = 0; r < c.repeats(); r++) {
        // Fresh buffers each repeat: reading userData consumes a ByteBuffer, and a consumed one
        // reads as "no previous assignment".
        Map<String, Subscription> subscriptions = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> m : step.members().entrySet()) {
          List<TopicPartition> owned = previous.getOrDefault(m.getKey(), List.of());
          ByteBuffer data = userData.get(m.getKey());
          Optional<String> rack = c.racks() == 0 ? Optional.empty() : Optional.of(rackOf(m.getKey(), c.racks()));
          subscriptions.put(
              m.getKey(),
              new Subscription(m.getValue(), data == null ? null : data.duplicate(), owned, generation, rack));
        }
        AbstractStickyAssignor assignor = factory.create();
        long started = System.nanoTime();
        result = c.racks() == 0
            ? assignor.assign(c.topics(), subscriptions)
            : assignor.assignPartitions(partitionInfos(c), subscriptions);
        nanos[r] = System.nanoTime() - started;
      }
      if (report) {
        Arrays.sort(nanos);
        double medianMs = nanos[nanos.length / 2] / 1e6;
        System.out.printf(
            "result\t%s\t%s\t%d\t%s\t%.3f\t%d\t%d\t%d\t%s%n",
            c.id(), name, s, step.kind(), medianMs, moved(previous, result), max(result), min(result),
            c.racks() == 0 ? "-" : String.valueOf(mismatches(c, result)));
      }
      previous = result;
      generation++;
    }
  }

  /**
   * What the member's own assignor instance would send with JoinGroup after being handed `owned`:
   * the eager StickyAssignor reads previous ownership from this userData only (the cooperative one
   * also from the owned partitions).
   */
  private static ByteBuffer ownUserData(
      Factory factory, String memberId, List<String> topics, List<TopicPartition> owned, int generation) {
    AbstractStickyAssignor member = factory.create();
    member.onAssignment(
        new Assignment(owned), new ConsumerGroupMetadata("peer-bench", generation - 1, memberId, Optional.empty()));
    return member.subscriptionUserData(new HashSet<>(topics));
  }

  /** Member m<n> sits in rack n % racks (a, b, c, ...). */
  private static String rackOf(String memberId, int racks) {
    return String.valueOf((char) ('a' + Integer.parseInt(memberId.substring(1)) % racks));
  }

  /** Kafka's test layout: partition p of the k-th topic on brokers (p + j + first) % racks, j below rf. */
  private static Map<String, List<PartitionInfo>> partitionInfos(Case c) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < c.racks(); i++) nodes.add(new Node(i, "", i, String.valueOf((char) ('a' + i))));
    Map<String, List<PartitionInfo>> out = new LinkedHashMap<>();
    int first = 0;
    for (Map.Entry<String, Integer> t : c.topics().entrySet()) {
      List<PartitionInfo> infos = new ArrayList<>();
      for (int p = 0; p < t.getValue(); p++) {
        Node[] replicas = new Node[c.rf()];
        for (int j = 0; j < c.rf(); j++) replicas[j] = nodes.get((p + j + first) % nodes.size());
        infos.add(new PartitionInfo(t.getKey(), p, replicas[0], replicas, replicas));
      }
      out.put(t.getKey(), infos);
      first += t.getValue();
    }
    return out;
  }

  /** Partitions on a member whose rack holds none of their replicas. */
  private static int mismatches(Case c, Map<String, List<TopicPartition>> assignment) {
    Map<String, List<PartitionInfo>> infos = partitionInfos(c);
    int mismatched = 0;
    for (Map.Entry<String, List<TopicPartition>> e : assignment.entrySet()) {
      String rack = rackOf(e.getKey(), c.racks());
      for (TopicPartition tp : e.getValue()) {
        PartitionInfo info = infos.get(tp.topic()).get(tp.partition());
        if (Arrays.stream(info.replicas()).noneMatch(n -> rack.equals(n.rack()))) mismatched++;
      }
    }
    return mismatched;
  }

  /** Partitions whose owner changed although that owner is still in the group. */
  private static int moved(Map<String, List<TopicPartition>> before, Map<String, List<TopicPartition>> after) {
    Map<TopicPartition, String> owner = new HashMap<>();
    before.forEach((member, partitions) -> partitions.forEach(p -> owner.put(p, member)));
    int moved = 0;
    for (Map.Entry<String, List<TopicPartition>> e : after.entrySet()) {
      for (TopicPartition p : e.getValue()) {
        String was = owner.get(p);
        if (was != null && !was.equals(e.getKey()) && after.containsKey(was)) moved++;
      }
    }
    return moved;
  }

  private static int max(Map<String, List<TopicPartition>> a) {
    return a.values().stream().mapToInt(List::size).max().orElse(0);
  }

  private static int min(Map<String, List<TopicPartition>> a) {
    return a.values().stream().mapToInt(List::size).min().orElse(0);
  }

  /**
   * The scenario file: "case id repeats warmups", optionally "racks count replicationFactor",
   * "topic name count", "step kind", "member id t1,t2", "end".
   */
  private static List<Case> read(String path) throws IOException {
    List<Case> cases = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(new FileReader(path))) {
      String id = null;
      int repeats = 0;
      int warmups = 0;
      Map<String, Integer> topics = null;
      List<Step> steps = null;
      int racks = 0;
      int rf = 0;
      Map<String, List<String>> members = null;
      for (String line; (line = in.readLine()) != null; ) {
        String[] f = line.split(" ");
        switch (f[0]) {
          case "case" -> {
            id = f[1];
            repeats = Integer.parseInt(f[2]);
            warmups = Integer.parseInt(f[3]);
            topics = new LinkedHashMap<>();
            steps = new ArrayList<>();
            racks = 0;
            rf = 0;
          }
          case "racks" -> {
            racks = Integer.parseInt(f[1]);
            rf = Integer.parseInt(f[2]);
          }
          case "topic" -> topics.put(f[1], Integer.parseInt(f[2]));
          case "step" -> {
            members = new LinkedHashMap<>();
            steps.add(new Step(f[1], members));
          }
          case "member" -> members.put(f[1], List.of(f[2].split(",")));
          case "end" -> cases.add(new Case(id, repeats, warmups, topics, steps, racks, rf));
          default -> throw new IOException("Unexpected line: " + line);
        }
      }
    }
    return cases;
  }
}

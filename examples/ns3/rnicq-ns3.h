/* rnicq-ns3.h -- rnicq's composed RNIC and switch as ns-3 NetDevices (issue 34; docs/ns3.md).
 *
 * A fabric (RnicqFabric) is built from a scenario -- a file and/or Attributes that mirror the
 * scenario keys -- and its NICs and switches are installed on ns-3 Nodes: RnicqNicDevice, one
 * per host (its engines, host model and TX MAC), RnicqSwitchDevice, one per switch port. Every
 * link of the scenario's topology is an ns-3 PointToPointChannel (a PointToPointRemoteChannel
 * between nodes of different MPI ranks), and every record that crosses it -- a packet with its
 * rnic_work record inside (RnicqHeader), a PFC frame, a host's PAUSE -- is an ns-3 Packet on it.
 *
 * Time. The engines run in clock cycles of T = 1 / clock_hz, a whole number of picoseconds (ns-3's
 * resolution must be Time::PS or finer). Cycle c runs at ns-3 time c T + 1 ps; a record that
 * reaches the far end of its link at cycle a is received at a T, before that cycle runs. A
 * device hands a packet to its channel in the cycle its last byte leaves the serialiser (d), so
 * the channel's delay is the link's propagation minus 1 ps and the transmission time the rest
 * ((a - d - propagation) T, 0 for a packet). The MPI lookahead is the smallest cross-rank
 * link's propagation minus 1 ps. The results are the standalone fabric's to the cycle:
 * rnic_model --scenario gives the same per-flow CSV and trace digest (make check).
 *
 *   RnicqHelper rnic;
 *   rnic.SetFabricAttribute("Scenario", StringValue("scenarios/websearch_fattree.conf"));
 *   NodeContainer hosts, switches;
 *   rnic.CreateNodes(hosts, switches);   // or your own nodes: InstallNics / InstallSwitches
 *   rnic.Connect();                      // the topology's links as point-to-point channels
 *   rnic.Start();
 *   Simulator::Run();
 *   rnic.Finish();                       // per-flow CSV (FctCsv), RESULT lines, the digest
 *   Simulator::Destroy();
 *
 * Build: rnicq-ns3.cc and rnicq_ext.c beside your program (Makefile: build/rnicq_fabric_ns3);
 * -DRNICQ_NS3_MPI with an ns-3 built with its mpi module (tools/deps.sh ns3-mpi). */
#ifndef RNICQ_NS3_H
#define RNICQ_NS3_H
#include "ns3/event-id.h"
#include "ns3/header.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/traced-callback.h"
#include "rnicq_ext.h"
#include <string>
#include <vector>

namespace ns3
{

/* A record crossing a link: the wire it travels (its sender and port) and the frame
 * (rnicq_ext.h: the packet's rnic_work record, its header fields, the cycle it arrives). */
class RnicqHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint32_t m_wire = 0;
    uint8_t m_frame[RNICQ_EXT_FRAME_BYTES] = {};
};

class RnicqFabric;

/* One port of an rnicq node on a point-to-point link. Its traffic is the node's own: Send from
 * the protocol stack is refused (counted); what arrives goes to the node, not up the stack. */
class RnicqPortDevice : public PointToPointNetDevice
{
  public:
    static TypeId GetTypeId();
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    void Bind(Ptr<RnicqFabric> fabric, uint32_t node, uint32_t port, uint32_t outWire, uint32_t inWire, Time delay);
    void Transmit(const uint8_t* frame, uint64_t atCycle, uint32_t wireBytes);
    uint32_t GetRnicqNode() const { return m_node; }
    uint32_t GetRnicqPort() const { return m_port; }
    uint64_t GetRefusedSends() const { return m_refusedSends; }

  private:
    bool FromChannel(Ptr<NetDevice> dev, Ptr<const Packet> p, uint16_t protocol, const Address& from);
    Ptr<RnicqFabric> m_fabric;
    uint32_t m_node = 0, m_port = 0, m_outWire = 0, m_inWire = 0;
    Time m_delay; /* its channel's */
    uint64_t m_refusedSends = 0;
    TracedCallback<Ptr<const Packet>> m_frameTx, m_frameRx;
};

/* A host's RNIC: its requester, responder, transports, Tassel, Palos, host model and TX MAC. */
class RnicqNicDevice : public RnicqPortDevice
{
  public:
    static TypeId GetTypeId();
    uint32_t GetHost() const { return GetRnicqNode(); }
};

/* One port of a switch (net.h's output-queued switch: shared buffer, ECN, PFC, ECMP). */
class RnicqSwitchDevice : public RnicqPortDevice
{
  public:
    static TypeId GetTypeId();
};

/* The fabric of one process (an MPI rank, or the whole run): the scenario, the engines' clock,
 * the cycles' events, the results. */
class RnicqFabric : public Object
{
  public:
    static TypeId GetTypeId();
    RnicqFabric();
    ~RnicqFabric() override;

    void Build(); /* the scenario, this process's nodes (rank from MPI when it is enabled) */
    bool IsBuilt() const { return m_x != nullptr; }
    uint32_t GetHosts() const;
    uint32_t GetSwitches() const;
    uint32_t GetPorts(uint32_t node) const;
    uint32_t GetRankOf(uint32_t node) const;
    uint32_t GetRank() const { return m_rank; }
    uint32_t GetRanks() const { return m_ranks; }
    std::string GetNodeName(uint32_t node) const;
    uint32_t GetWires() const;
    void GetWire(uint32_t w, uint32_t& from, uint32_t& fromPort, uint32_t& to, uint32_t& toPort, uint64_t& propCycles,
                 uint64_t& rateBps) const;
    uint32_t GetWireOf(uint32_t node, uint32_t port) const;
    Time GetCycleTime(uint64_t cycle) const;     /* when cycle runs: cycle T + 1 ps */
    Time GetChannelDelay(uint64_t propCycles) const; /* propagation - 1 ps */

    void AttachSender(uint32_t wire, Ptr<RnicqPortDevice> dev);
    void Start();
    void Arrive(uint32_t wire, const uint8_t* frame);
    uint64_t Finish(); /* after Simulator::Run: results gathered (MPI), reported by rank 0 */
    uint64_t GetDigest() const { return m_digest; }
    uint64_t GetLateTransmits() const { return m_lateTx; }
    void NoteLateTransmit() { m_lateTx++; } /* a device could not hand a record over in time */
    void NoteBadFrame() { m_badFrames++; }  /* a device received what is not a record of its link */
    uint64_t GetBadFrames() const { return m_badFrames; }
    uint64_t GetCyclesRun() const { return m_cycles; }
    bool IsDrained() const { return rnicq_ext_drained(m_x) != 0; }
    /* FlowComplete: id, src host, dst host, size bytes, start ns, FCT ns */
    typedef void (*FlowCallback)(uint32_t, uint32_t, uint32_t, uint64_t, uint64_t, uint64_t);

  private:
    static void SendFrame(void* user, uint32_t wire, const uint8_t* frame, uint64_t at, uint32_t wireBytes);
    static void FlowDone(void* user, uint32_t id, uint32_t src, uint32_t dst, uint64_t size, uint64_t startNs,
                         uint64_t fctNs);
    void OnCycle();
    void ScheduleCycle(uint64_t cycle);
    void Sum(uint64_t* v, size_t n) const;
    std::vector<std::string> Keys() const;

    rnicq_ext* m_x = nullptr;
    std::vector<Ptr<RnicqPortDevice>> m_sender; /* per wire: its sending device, when local */
    EventId m_event;
    uint64_t m_eventCycle = RNICQ_EXT_NEVER;
    uint64_t m_periodPs = 0;
    uint32_t m_rank = 0, m_ranks = 1;
    uint64_t m_digest = 0, m_lateTx = 0, m_cycles = 0, m_badFrames = 0;
    bool m_finished = false;
    /* Attributes */
    std::string m_scenario, m_set, m_fctCsv, m_resultName;
    std::string m_durationUs, m_warmupUs, m_seed, m_drain, m_shape, m_k, m_topoHosts, m_linkGbps, m_fabricGbps,
        m_linkDelayNs, m_payload, m_pfc, m_ecn, m_bufferKb, m_hostModel, m_rhcc;
    TracedCallback<uint32_t, uint32_t, uint32_t, uint64_t, uint64_t, uint64_t> m_flowComplete;
};

/* Installs a fabric on ns-3 nodes: the scenario's hosts and switches, its links as channels. */
class RnicqHelper
{
  public:
    RnicqHelper();
    void SetFabricAttribute(std::string name, const AttributeValue& value);
    Ptr<RnicqFabric> GetFabric(); /* built on first use */
    /* New nodes, one per host and per switch, each on its MPI rank (its system id). */
    void CreateNodes(NodeContainer& hosts, NodeContainer& switches);
    /* Your nodes: hosts.Get(i) is host i (RnicqNicDevice), switches.Get(i) switch i (one
     * RnicqSwitchDevice per port). Their counts must be the scenario's. */
    NetDeviceContainer InstallNics(const NodeContainer& hosts);
    NetDeviceContainer InstallSwitches(const NodeContainer& switches);
    void Connect(); /* every link of the topology: a (remote) point-to-point channel */
    void Start() { GetFabric()->Start(); }
    uint64_t Finish() { return GetFabric()->Finish(); }

  private:
    Ptr<RnicqPortDevice> Port(uint32_t node, uint32_t port) const;
    ObjectFactory m_fabricFactory;
    Ptr<RnicqFabric> m_fabric;
    std::vector<std::vector<Ptr<RnicqPortDevice>>> m_ports; /* per node, per port */
};

} // namespace ns3
#endif /* RNICQ_NS3_H */

/* rnicq-ns3.cc -- rnicq-ns3.h's devices, fabric and helper (issue 34; docs/ns3.md). */
#include "rnicq-ns3.h"

#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#ifdef RNICQ_NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/point-to-point-remote-channel.h"
#include <mpi.h>
#endif
#include <cstring>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Rnicq");
NS_OBJECT_ENSURE_REGISTERED(RnicqHeader);
NS_OBJECT_ENSURE_REGISTERED(RnicqPortDevice);
NS_OBJECT_ENSURE_REGISTERED(RnicqNicDevice);
NS_OBJECT_ENSURE_REGISTERED(RnicqSwitchDevice);
NS_OBJECT_ENSURE_REGISTERED(RnicqFabric);

static const uint16_t kPppIpv4 = 0x0021; /* the only payload PPP framing in ns-3 knows besides IPv6 */

/* ---- RnicqHeader ---- */
TypeId
RnicqHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RnicqHeader").SetParent<Header>().SetGroupName("Rnicq").AddConstructor<RnicqHeader>();
    return tid;
}

TypeId
RnicqHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RnicqHeader::GetSerializedSize() const
{
    return 4 + RNICQ_EXT_FRAME_BYTES;
}

void
RnicqHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU32(m_wire);
    i.Write(m_frame, RNICQ_EXT_FRAME_BYTES);
}

uint32_t
RnicqHeader::Deserialize(Buffer::Iterator i)
{
    m_wire = i.ReadNtohU32();
    i.Read(m_frame, RNICQ_EXT_FRAME_BYTES);
    return GetSerializedSize();
}

void
RnicqHeader::Print(std::ostream& os) const
{
    os << "rnicq wire=" << m_wire << " at=" << rnicq_ext_frame_at(m_frame);
}

/* ---- the devices ---- */
TypeId
RnicqPortDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RnicqPortDevice")
            .SetParent<PointToPointNetDevice>()
            .SetGroupName("Rnicq")
            .AddConstructor<RnicqPortDevice>()
            .AddTraceSource("FrameTx", "A record (packet, PFC or pause frame) handed to the channel",
                            MakeTraceSourceAccessor(&RnicqPortDevice::m_frameTx), "ns3::Packet::TracedCallback")
            .AddTraceSource("FrameRx", "A record received from the channel, before its node takes it",
                            MakeTraceSourceAccessor(&RnicqPortDevice::m_frameRx), "ns3::Packet::TracedCallback");
    return tid;
}

void
RnicqPortDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    (void)cb; /* what arrives is the rnicq node's, not the protocol stack's */
    PointToPointNetDevice::SetReceiveCallback(MakeCallback(&RnicqPortDevice::FromChannel, this));
}

bool
RnicqPortDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    (void)packet, (void)dest, (void)protocolNumber;
    m_refusedSends++; /* the node's traffic is its workload's (the scenario's tenants) */
    return false;
}

void
RnicqPortDevice::Bind(Ptr<RnicqFabric> fabric, uint32_t node, uint32_t port, uint32_t outWire, uint32_t inWire,
                      Time delay)
{
    m_delay = delay;
    m_fabric = fabric;
    m_node = node;
    m_port = port;
    m_outWire = outWire;
    m_inWire = inWire;
}

void
RnicqPortDevice::Transmit(const uint8_t* frame, uint64_t atCycle, uint32_t wireBytes)
{
    RnicqHeader h;
    PppHeader ppp;
    uint32_t size = h.GetSerializedSize() + ppp.GetSerializedSize();
    /* as long as the frame on the wire (sniffers and byte counters see its size), never shorter */
    Ptr<Packet> p = Create<Packet>(wireBytes > size ? wireBytes - size : 0);
    Ptr<PointToPointChannel> ch = DynamicCast<PointToPointChannel>(GetChannel());
    h.m_wire = m_outWire;
    std::memcpy(h.m_frame, frame, RNICQ_EXT_FRAME_BYTES);
    p->AddHeader(h);
    ppp.SetProtocol(kPppIpv4);
    p->AddHeader(ppp);
    /* lands at atCycle T: after the channel's delay (propagation - 1 ps), the rest is the
     * transmission time (0 for a packet sent in its departure cycle) */
    Time tx = m_fabric->GetCycleTime(atCycle) - PicoSeconds(1) - Simulator::Now() - m_delay;
    if (tx.IsStrictlyNegative())
    {
        m_fabric->NoteLateTransmit();
        tx = Seconds(0);
    }
    m_frameTx(p);
    ch->TransmitStart(p, this, tx);
}

bool
RnicqPortDevice::FromChannel(Ptr<NetDevice> dev, Ptr<const Packet> p, uint16_t protocol, const Address& from)
{
    uint8_t b[4 + RNICQ_EXT_FRAME_BYTES];
    uint32_t wire;
    (void)dev, (void)protocol, (void)from;
    m_frameRx(p);
    /* RnicqHeader's bytes, copied out at once (PeekHeader reads them one by one: a tenth of the
     * ns-3 build's instructions) */
    if (p->GetSize() < sizeof b || p->CopyData(b, sizeof b) != sizeof b)
    {
        NS_LOG_WARN("rnicq: a frame too short for an RnicqHeader");
        m_fabric->NoteBadFrame();
        return false;
    }
    wire = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    if (wire != m_inWire)
    {
        NS_LOG_WARN("rnicq: a frame not of this link's wire");
        m_fabric->NoteBadFrame();
        return false;
    }
    m_fabric->Arrive(wire, b + 4);
    return true;
}

TypeId
RnicqNicDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RnicqNicDevice").SetParent<RnicqPortDevice>().SetGroupName("Rnicq").AddConstructor<RnicqNicDevice>();
    return tid;
}

TypeId
RnicqSwitchDevice::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RnicqSwitchDevice")
                            .SetParent<RnicqPortDevice>()
                            .SetGroupName("Rnicq")
                            .AddConstructor<RnicqSwitchDevice>();
    return tid;
}

/* ---- the fabric ---- */
#define RNICQ_KEY_ATTR(tid, name, key, member)                                                                      \
    tid.AddAttribute(name, "scenario key " key " (empty: the scenario's value)", StringValue(""),                  \
                     MakeStringAccessor(&RnicqFabric::member), MakeStringChecker())

TypeId
RnicqFabric::GetTypeId()
{
    static TypeId tid = [] {
        TypeId t = TypeId("ns3::RnicqFabric").SetParent<Object>().SetGroupName("Rnicq").AddConstructor<RnicqFabric>();
        t.AddAttribute("Scenario", "a scenario file (docs/scenario.md); empty: the defaults", StringValue(""),
                       MakeStringAccessor(&RnicqFabric::m_scenario), MakeStringChecker());
        t.AddAttribute("Set", "more keys, section.key=value;section.key=value (after the file and the keys below)",
                       StringValue(""), MakeStringAccessor(&RnicqFabric::m_set), MakeStringChecker());
        t.AddAttribute("FctCsv", "the per-flow results file (rnic_model --fct-csv's columns); empty: none",
                       StringValue(""), MakeStringAccessor(&RnicqFabric::m_fctCsv), MakeStringChecker());
        t.AddAttribute("ResultName", "the RESULT line's name", StringValue("ns3_fabric"),
                       MakeStringAccessor(&RnicqFabric::m_resultName), MakeStringChecker());
        RNICQ_KEY_ATTR(t, "DurationUs", "run.duration_us", m_durationUs);
        RNICQ_KEY_ATTR(t, "WarmupUs", "run.warmup_us", m_warmupUs);
        RNICQ_KEY_ATTR(t, "Seed", "run.seed", m_seed);
        RNICQ_KEY_ATTR(t, "Drain", "run.drain", m_drain);
        RNICQ_KEY_ATTR(t, "Shape", "topology.shape", m_shape);
        RNICQ_KEY_ATTR(t, "K", "topology.k", m_k);
        RNICQ_KEY_ATTR(t, "Hosts", "topology.hosts", m_topoHosts);
        RNICQ_KEY_ATTR(t, "LinkGbps", "topology.link_gbps", m_linkGbps);
        RNICQ_KEY_ATTR(t, "FabricGbps", "topology.fabric_gbps", m_fabricGbps);
        RNICQ_KEY_ATTR(t, "LinkDelayNs", "topology.link_delay_ns", m_linkDelayNs);
        RNICQ_KEY_ATTR(t, "Payload", "nic.payload", m_payload);
        RNICQ_KEY_ATTR(t, "Pfc", "switch.pfc", m_pfc);
        RNICQ_KEY_ATTR(t, "Ecn", "switch.ecn", m_ecn);
        RNICQ_KEY_ATTR(t, "BufferKb", "switch.buffer_kb", m_bufferKb);
        RNICQ_KEY_ATTR(t, "HostModel", "host.model", m_hostModel);
        RNICQ_KEY_ATTR(t, "Rhcc", "host.rhcc", m_rhcc);
        t.AddTraceSource("FlowComplete",
                         "a workload flow completed at its sender: id, src, dst, size bytes, start ns, FCT ns",
                         MakeTraceSourceAccessor(&RnicqFabric::m_flowComplete), "ns3::RnicqFabric::FlowCallback");
        return t;
    }();
    return tid;
}

RnicqFabric::RnicqFabric() = default;

RnicqFabric::~RnicqFabric()
{
    rnicq_ext_close(m_x);
}

std::vector<std::string>
RnicqFabric::Keys() const
{
    std::vector<std::string> k;
    const std::pair<const char*, const std::string*> mirror[] = {
        {"run.duration_us", &m_durationUs}, {"run.warmup_us", &m_warmupUs},      {"run.seed", &m_seed},
        {"run.drain", &m_drain},            {"topology.shape", &m_shape},        {"topology.k", &m_k},
        {"topology.hosts", &m_topoHosts},   {"topology.link_gbps", &m_linkGbps}, {"topology.fabric_gbps", &m_fabricGbps},
        {"topology.link_delay_ns", &m_linkDelayNs}, {"nic.payload", &m_payload}, {"switch.pfc", &m_pfc},
        {"switch.ecn", &m_ecn},             {"switch.buffer_kb", &m_bufferKb},   {"host.model", &m_hostModel},
        {"host.rhcc", &m_rhcc},
    };
    for (const auto& m : mirror)
    {
        if (!m.second->empty())
        {
            k.push_back(std::string(m.first) + "=" + *m.second);
        }
    }
    std::stringstream ss(m_set);
    std::string item;
    while (std::getline(ss, item, ';'))
    {
        if (!item.empty())
        {
            k.push_back(item);
        }
    }
    return k;
}

void
RnicqFabric::Build()
{
    std::vector<std::string> keys = Keys();
    std::vector<const char*> ptrs;
    char err[512];
    uint64_t clock;
    NS_ABORT_MSG_IF(m_x, "rnicq: the fabric is built once");
    NS_ABORT_MSG_IF(Time::GetResolution() < Time::PS,
                    "rnicq: the engines' clock needs ns-3 time in picoseconds: Time::SetResolution(Time::PS) first");
#ifdef RNICQ_NS3_MPI
    if (MpiInterface::IsEnabled())
    {
        m_ranks = MpiInterface::GetSize();
        m_rank = MpiInterface::GetSystemId();
    }
#endif
    for (const auto& k : keys)
    {
        ptrs.push_back(k.c_str());
    }
    m_x = rnicq_ext_open(m_scenario.empty() ? nullptr : m_scenario.c_str(), ptrs.data(), ptrs.size(), m_ranks, m_rank,
                         &RnicqFabric::SendFrame, this, err, sizeof err);
    NS_ABORT_MSG_IF(!m_x, "rnicq: " << err);
    clock = rnicq_ext_clock_hz(m_x);
    NS_ABORT_MSG_IF(1000000000000ull % clock, "rnicq: a clock of " << clock << " Hz is not a whole number of ps");
    m_periodPs = 1000000000000ull / clock;
    m_sender.resize(rnicq_ext_wires(m_x));
    rnicq_ext_on_flow_done(m_x, &RnicqFabric::FlowDone, this);
}

uint32_t
RnicqFabric::GetHosts() const
{
    return rnicq_ext_hosts(m_x);
}

uint32_t
RnicqFabric::GetSwitches() const
{
    return rnicq_ext_switches(m_x);
}

uint32_t
RnicqFabric::GetPorts(uint32_t node) const
{
    return rnicq_ext_ports(m_x, node);
}

uint32_t
RnicqFabric::GetRankOf(uint32_t node) const
{
    return rnicq_ext_rank_of(m_x, node);
}

std::string
RnicqFabric::GetNodeName(uint32_t node) const
{
    return rnicq_ext_node_name(m_x, node);
}

uint32_t
RnicqFabric::GetWires() const
{
    return rnicq_ext_wires(m_x);
}

void
RnicqFabric::GetWire(uint32_t w, uint32_t& from, uint32_t& fromPort, uint32_t& to, uint32_t& toPort,
                     uint64_t& propCycles, uint64_t& rateBps) const
{
    rnicq_ext_wire(m_x, w, &from, &fromPort, &to, &toPort, &propCycles, &rateBps);
}

uint32_t
RnicqFabric::GetWireOf(uint32_t node, uint32_t port) const
{
    return rnicq_ext_wire_of(m_x, node, port);
}

Time
RnicqFabric::GetCycleTime(uint64_t cycle) const
{
    return PicoSeconds(cycle * m_periodPs + 1);
}

Time
RnicqFabric::GetChannelDelay(uint64_t propCycles) const
{
    return PicoSeconds(propCycles * m_periodPs - 1);
}

void
RnicqFabric::AttachSender(uint32_t wire, Ptr<RnicqPortDevice> dev)
{
    m_sender.at(wire) = dev;
}

void
RnicqFabric::SendFrame(void* user, uint32_t wire, const uint8_t* frame, uint64_t at, uint32_t wireBytes)
{
    RnicqFabric* f = static_cast<RnicqFabric*>(user);
    NS_ABORT_MSG_IF(!f->m_sender[wire], "rnicq: wire " << wire << " has no device (RnicqHelper::Connect)");
    f->m_sender[wire]->Transmit(frame, at, wireBytes);
}

void
RnicqFabric::FlowDone(void* user, uint32_t id, uint32_t src, uint32_t dst, uint64_t size, uint64_t startNs,
                      uint64_t fctNs)
{
    static_cast<RnicqFabric*>(user)->m_flowComplete(id, src, dst, size, startNs, fctNs);
}

void
RnicqFabric::Start()
{
    ScheduleCycle(rnicq_ext_next(m_x));
}

void
RnicqFabric::ScheduleCycle(uint64_t cycle)
{
    if (cycle == RNICQ_EXT_NEVER || (m_event.IsRunning() && m_eventCycle <= cycle))
    {
        return;
    }
    m_event.Cancel();
    m_eventCycle = cycle;
    m_event = Simulator::Schedule(GetCycleTime(cycle) - Simulator::Now(), &RnicqFabric::OnCycle, this);
}

void
RnicqFabric::OnCycle()
{
    uint64_t t = m_eventCycle;
    m_eventCycle = RNICQ_EXT_NEVER;
    for (;;)
    {
        uint64_t n = rnicq_ext_next(m_x);
        if (n == RNICQ_EXT_NEVER)
        {
            m_finished = true;
            Simulator::Stop();
            return;
        }
        if (n != t)
        {
            ScheduleCycle(n);
            return;
        }
        if (rnicq_ext_at_boundary(m_x, t))
        {
            uint64_t v[RNICQ_EXT_VALUES];
            rnicq_ext_boundary_local(m_x, v);
            Sum(v, RNICQ_EXT_VALUES);
            rnicq_ext_boundary_done(m_x, v);
        }
        else
        {
            rnicq_ext_cycle(m_x, t);
            m_cycles++;
        }
    }
}

void
RnicqFabric::Arrive(uint32_t wire, const uint8_t* frame)
{
    if (m_finished)
    {
        return; /* after the run's end */
    }
    rnicq_ext_arrive(m_x, wire, frame);
    ScheduleCycle(rnicq_ext_next(m_x));
}

void
RnicqFabric::Sum(uint64_t* v, size_t n) const
{
#ifdef RNICQ_NS3_MPI
    if (m_ranks > 1)
    {
        MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    }
#else
    (void)v, (void)n;
#endif
}

uint64_t
RnicqFabric::Finish()
{
    std::vector<uint64_t> v(rnicq_ext_results_len(m_x));
    uint64_t refusedMax = rnicq_ext_refused_max(m_x), late[2] = {m_lateTx, m_badFrames};
    rnicq_ext_results_local(m_x, v.data());
    Sum(v.data(), v.size());
    Sum(late, 2);
#ifdef RNICQ_NS3_MPI
    if (m_ranks > 1)
    {
        MPI_Allreduce(MPI_IN_PLACE, &refusedMax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    }
#endif
    m_lateTx = late[0];
    m_badFrames = late[1];
    m_sender.clear(); /* the devices hold the fabric: no cycle left */
    if (m_rank == 0)
    {
        m_digest = rnicq_ext_results_report(m_x, v.data(), m_resultName.c_str(),
                                            m_fctCsv.empty() ? nullptr : m_fctCsv.c_str(), refusedMax);
    }
    return m_digest;
}

/* ---- the helper ---- */
RnicqHelper::RnicqHelper()
{
    m_fabricFactory.SetTypeId("ns3::RnicqFabric");
}

void
RnicqHelper::SetFabricAttribute(std::string name, const AttributeValue& value)
{
    NS_ABORT_MSG_IF(m_fabric, "rnicq: set the fabric's attributes before it is built");
    m_fabricFactory.Set(name, value);
}

Ptr<RnicqFabric>
RnicqHelper::GetFabric()
{
    if (!m_fabric)
    {
        m_fabric = m_fabricFactory.Create<RnicqFabric>();
        m_fabric->Build();
        m_ports.resize(m_fabric->GetHosts() + m_fabric->GetSwitches());
    }
    return m_fabric;
}

void
RnicqHelper::CreateNodes(NodeContainer& hosts, NodeContainer& switches)
{
    Ptr<RnicqFabric> f = GetFabric();
    uint32_t h, s, H = f->GetHosts();
    for (h = 0; h < H; h++)
    {
        hosts.Add(CreateObject<Node>(f->GetRankOf(h)));
    }
    for (s = 0; s < f->GetSwitches(); s++)
    {
        switches.Add(CreateObject<Node>(f->GetRankOf(H + s)));
    }
    InstallNics(hosts);
    InstallSwitches(switches);
}

NetDeviceContainer
RnicqHelper::InstallNics(const NodeContainer& hosts)
{
    Ptr<RnicqFabric> f = GetFabric();
    NetDeviceContainer c;
    NS_ABORT_MSG_IF(hosts.GetN() != f->GetHosts(),
                    "rnicq: " << hosts.GetN() << " nodes for the scenario's " << f->GetHosts() << " hosts");
    for (uint32_t h = 0; h < hosts.GetN(); h++)
    {
        Ptr<RnicqNicDevice> d = CreateObject<RnicqNicDevice>();
        d->SetAddress(Mac48Address::Allocate());
        hosts.Get(h)->AddDevice(d);
        m_ports[h].assign(1, d);
        c.Add(d);
    }
    return c;
}

NetDeviceContainer
RnicqHelper::InstallSwitches(const NodeContainer& switches)
{
    Ptr<RnicqFabric> f = GetFabric();
    NetDeviceContainer c;
    uint32_t H = f->GetHosts();
    NS_ABORT_MSG_IF(switches.GetN() != f->GetSwitches(),
                    "rnicq: " << switches.GetN() << " nodes for the scenario's " << f->GetSwitches() << " switches");
    for (uint32_t s = 0; s < switches.GetN(); s++)
    {
        m_ports[H + s].clear();
        for (uint32_t p = 0; p < f->GetPorts(H + s); p++)
        {
            Ptr<RnicqSwitchDevice> d = CreateObject<RnicqSwitchDevice>();
            d->SetAddress(Mac48Address::Allocate());
            switches.Get(s)->AddDevice(d);
            m_ports[H + s].push_back(d);
            c.Add(d);
        }
    }
    return c;
}

Ptr<RnicqPortDevice>
RnicqHelper::Port(uint32_t node, uint32_t port) const
{
    NS_ABORT_MSG_IF(node >= m_ports.size() || port >= m_ports[node].size(),
                    "rnicq: node " << node << " port " << port << " has no device (InstallNics / InstallSwitches)");
    return m_ports[node][port];
}

void
RnicqHelper::Connect()
{
    Ptr<RnicqFabric> f = GetFabric();
    uint32_t me = f->GetRank();
    for (uint32_t w = 0; w < f->GetWires(); w++)
    {
        uint32_t from, fp, to, tp, back;
        uint64_t prop, rate;
        Ptr<PointToPointChannel> ch;
        f->GetWire(w, from, fp, to, tp, prop, rate);
        if (from > to || (from == to && fp > tp))
        {
            continue; /* each link once, from its lower end */
        }
        back = f->GetWireOf(to, tp);
        Ptr<RnicqPortDevice> a = Port(from, fp), b = Port(to, tp);
        bool remote = f->GetRanks() > 1 && (f->GetRankOf(from) != me || f->GetRankOf(to) != me);
#ifdef RNICQ_NS3_MPI
        if (remote)
        {
            Ptr<MpiReceiver> ra = CreateObject<MpiReceiver>(), rb = CreateObject<MpiReceiver>();
            ch = CreateObject<PointToPointRemoteChannel>();
            ra->SetReceiveCallback(MakeCallback(&PointToPointNetDevice::Receive, PeekPointer(a)));
            rb->SetReceiveCallback(MakeCallback(&PointToPointNetDevice::Receive, PeekPointer(b)));
            a->AggregateObject(ra);
            b->AggregateObject(rb);
        }
#else
        NS_ABORT_MSG_IF(remote, "rnicq: ranks without MPI");
#endif
        if (!ch)
        {
            ch = CreateObject<PointToPointChannel>();
        }
        ch->SetAttribute("Delay", TimeValue(f->GetChannelDelay(prop)));
        a->SetDataRate(DataRate(rate));
        b->SetDataRate(DataRate(rate));
        a->Attach(ch);
        b->Attach(ch);
        a->Bind(f, from, fp, w, back, f->GetChannelDelay(prop));
        b->Bind(f, to, tp, back, w, f->GetChannelDelay(prop));
        if (f->GetRankOf(from) == me)
        {
            f->AttachSender(w, a);
        }
        if (f->GetRankOf(to) == me)
        {
            f->AttachSender(back, b);
        }
    }
}

} // namespace ns3

// tonic_newreno_ns3.cc - the ns-3 ("hard-coded") side of the Tonic NewReno
// comparison (Tonic, NSDI 2020, section 6.2.1 and Fig. 3).
//
// Topology: every host is its own node, joined to one switch node (IP
// forwarding) by a 10 Gb/s point-to-point link with 2.5 us propagation, so
// the propagation RTT host -> switch -> host -> switch -> host is 10 us.
// The switch's egress device queues are DropTail, 5.5 MB (bytes); the
// traffic-control root queue discs are removed from every device, so that
// device queue is the only switch buffer.  Host device queues are large
// (64 MB) so hosts never drop: the only losses are the drop list (single
// mode) or the switch buffer (many mode).
//
// TCP: TcpNewReno + TcpClassicRecovery, 1000 B segments, MinRto 200 ms,
// delayed ACKs (DelAckCount 2, DelAckTimeout default), SACK off,
// timestamps off, initial cwnd 10 segments, limited transmit at the ns-3
// default, RcvBufSize = --rwnd-bytes, SndBufSize = RcvBufSize by default (the
// sender keeps its send buffer full, so it is never application-limited; see
// the ns-3.37 crash note at `sndbuf == 0` below for why not larger).
//
// --mode=single: one flow host0 -> host1 with drops at host1's NIC from
//   --drops=a,b,c (0-based ordinals over every packet host1's device
//   receives, the SYN being 0).  CSV: t_us,kind,seq,value.
// --mode=many: 2 sender hosts x --flows-per-host flows to one receiver.
//   CSV: flow,host,bytes_acked,mbps.
//
// Build (Debian 12, ns-3 3.37):
//   g++ -std=c++17 -O2 -o build/tonic_newreno_ns3 examples/ns3/tonic_newreno_ns3.cc
//     $(pkg-config --cflags --libs ns3-core ns3-network ns3-internet
//       ns3-point-to-point ns3-applications ns3-traffic-control)
//   (one command line; see examples/ns3/README.md)

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <list>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const uint32_t kSeg = 1000;          // TCP segment size (bytes)
const uint16_t kPort = 5000;         // receiver port
const char* kSwitchBuf = "5500000B"; // 5.5 MB switch egress buffer
const char* kHostBuf = "64000000B";  // host NIC queue: large, never drops

struct Flow
{
    uint32_t id = 0;
    uint32_t host = 0;
    Ptr<Socket> sock;
    bool traced = false; // single mode: write CSV rows for this flow
    // 64-bit unwrapped sequence bookkeeping (relative to ISN, which is 0)
    uint64_t ackedBytes = 0;  // highest cumulative ACK - 1 (the SYN)
    uint32_t lastAckRaw = 0;  // last HighestRxAck raw value
    bool ackSeen = false;
    uint64_t sentEnd = 0;     // highest (seq + len) sent, unwrapped
    uint32_t fastRtx = 0;
    uint32_t losses = 0;      // CongState -> CA_LOSS transitions
    uint32_t timeouts = 0;    // RTO firings (RTO doubled)
    uint64_t dataTx = 0;
    uint64_t reTx = 0;
    // cwnd time average (sample-and-hold)
    bool cwndSeen = false;
    double cwndFirstT = 0;
    double cwndLastT = 0;
    double cwndLast = 0;
    double cwndArea = 0;
};

FILE* g_csv = nullptr;
bool g_cwndInfl = false; // --cwnd-infl
bool g_rxRows = false;   // --rx-rows
std::vector<Flow> g_flows;

double
NowUs()
{
    return Simulator::Now().GetNanoSeconds() / 1000.0;
}

void
Row(const char* kind, uint64_t seq, double value)
{
    if (g_csv)
    {
        std::fprintf(g_csv, "%.3f,%s,%" PRIu64 ",%.0f\n", NowUs(), kind, seq, value);
    }
}

// Unwrap a 32-bit sequence number near a 64-bit reference.
uint64_t
Unwrap(uint32_t raw, uint64_t ref)
{
    int32_t d = static_cast<int32_t>(raw - static_cast<uint32_t>(ref));
    return static_cast<uint64_t>(static_cast<int64_t>(ref) + d);
}

void
CwndCb(Flow* f, uint32_t /*oldv*/, uint32_t newv)
{
    double t = NowUs();
    if (f->cwndSeen)
    {
        f->cwndArea += f->cwndLast * (t - f->cwndLastT);
    }
    else
    {
        f->cwndSeen = true;
        f->cwndFirstT = t;
    }
    f->cwndLastT = t;
    f->cwndLast = newv;
    if (f->traced)
    {
        Row("cwnd", 0, newv);
    }
}

void
CwndInflCb(Flow* f, uint32_t /*oldv*/, uint32_t newv)
{
    if (f->traced && g_cwndInfl)
    {
        Row("cwnd_infl", 0, newv);
    }
}

void
CongStateCb(Flow* f, TcpSocketState::TcpCongState_t /*oldv*/, TcpSocketState::TcpCongState_t newv)
{
    if (newv == TcpSocketState::CA_RECOVERY)
    {
        f->fastRtx++;
        if (f->traced)
        {
            Row("fast_rtx", f->ackedBytes / kSeg, 0);
        }
    }
    else if (newv == TcpSocketState::CA_LOSS)
    {
        f->losses++;
    }
}

// TcpSocketBase::ReTxTimeout doubles m_rto (capped at 60 s) every time the
// retransmission timer fires, also when the socket is already in CA_LOSS
// (where the CongState trace would not fire again).  RTT samples set the RTO
// to max(srtt + max(G, 4 rttvar), MinRto), which with a 10 us RTT is exactly
// MinRto, so an RTO change to exactly twice the old value is a timer firing.
void
RtoCb(Flow* f, Time oldv, Time newv)
{
    bool doubled = oldv.IsStrictlyPositive() &&
                   (newv == oldv + oldv || (newv == Seconds(60) && oldv + oldv >= Seconds(60)));
    if (doubled)
    {
        f->timeouts++;
        if (f->traced)
        {
            Row("timeout", f->ackedBytes / kSeg, newv.GetMicroSeconds());
        }
    }
}

void
TxCb(Flow* f, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> /*s*/)
{
    uint32_t len = p->GetSize();
    if (len == 0)
    {
        return; // SYN / pure ACK / FIN without data
    }
    uint64_t seq = Unwrap(h.GetSequenceNumber().GetValue(), f->sentEnd);
    bool rtx = seq < f->sentEnd;
    f->dataTx++;
    if (rtx)
    {
        f->reTx++;
    }
    f->sentEnd = std::max(f->sentEnd, seq + len);
    if (f->traced)
    {
        Row("tx", (seq - 1) / kSeg, rtx ? 1 : 0);
    }
}

void
AckCb(Flow* f, SequenceNumber32 /*oldv*/, SequenceNumber32 newv)
{
    uint32_t raw = newv.GetValue();
    if (!f->ackSeen)
    {
        f->ackSeen = true;
        f->lastAckRaw = raw;
        f->ackedBytes = raw >= 1 ? raw - 1 : 0;
        return;
    }
    int32_t d = static_cast<int32_t>(raw - f->lastAckRaw);
    if (d > 0)
    {
        f->ackedBytes += static_cast<uint32_t>(d);
        f->lastAckRaw = raw;
    }
}

// Keep the send buffer full: the application always has data.
void
Fill(Ptr<Socket> s, uint32_t /*avail*/)
{
    while (true)
    {
        uint32_t avail = s->GetTxAvailable();
        if (avail == 0)
        {
            break;
        }
        uint32_t n = std::min<uint32_t>(avail, 65536);
        if (s->Send(Create<Packet>(n)) < 0)
        {
            break;
        }
    }
}

void
Connected(Ptr<Socket> s)
{
    Fill(s, s->GetTxAvailable());
}

void
ConnectFailed(Ptr<Socket> /*s*/)
{
    std::fprintf(stderr, "tonic_newreno_ns3: connection failed\n");
}

void
StartFlow(Flow* f, Ptr<Node> node, Address dst)
{
    f->sock = Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
    Ptr<Socket> s = f->sock;
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&CwndCb, f));
    s->TraceConnectWithoutContext("CongestionWindowInflated", MakeBoundCallback(&CwndInflCb, f));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongStateCb, f));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&RtoCb, f));
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&TxCb, f));
    s->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&AckCb, f));
    s->Bind();
    s->SetConnectCallback(MakeCallback(&Connected), MakeCallback(&ConnectFailed));
    s->SetSendCallback(MakeCallback(&Fill));
    s->Connect(dst);
}

// Receiver-NIC accounting: every packet reaching the device is either
// PhyRxEnd (accepted) or PhyRxDrop (corrupted by the error model).
uint64_t g_rxOrdinal = 0;
std::vector<uint64_t> g_droppedOrdinals;

// TCP sequence number of a packet as seen on the receiver's device.
uint32_t
PeekSeq(Ptr<const Packet> p, uint32_t* len)
{
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    TcpHeader tcp;
    c->RemoveHeader(ppp);
    c->RemoveHeader(ip);
    c->RemoveHeader(tcp);
    *len = c->GetSize();
    return tcp.GetSequenceNumber().GetValue();
}

void
RxEndCb(Ptr<const Packet> p)
{
    if (g_rxRows && g_csv)
    {
        // kind rx: seq = receiver-NIC ordinal, value = data segment number
        // (-1 for packets without payload: SYN, handshake ACK)
        uint32_t len = 0;
        uint32_t seq = PeekSeq(p, &len);
        Row("rx", g_rxOrdinal, len > 0 ? static_cast<double>((seq - 1) / kSeg) : -1.0);
    }
    g_rxOrdinal++;
}

void
RxDropCb(Ptr<const Packet> p)
{
    uint32_t len = 0;
    uint32_t seq = PeekSeq(p, &len);
    std::printf("INFO rx_drop ordinal=%" PRIu64 " t_us=%.3f tcp_seq=%u len=%u\n",
                g_rxOrdinal,
                NowUs(),
                seq,
                len);
    g_droppedOrdinals.push_back(g_rxOrdinal);
    g_rxOrdinal++;
}

uint64_t g_swDrops = 0;
uint64_t g_hostDrops = 0;

void
SwDropCb(Ptr<const Packet> /*p*/)
{
    g_swDrops++;
}

void
HostDropCb(Ptr<const Packet> /*p*/)
{
    g_hostDrops++;
}

std::vector<uint32_t>
ParseList(const std::string& s)
{
    std::vector<uint32_t> v;
    std::stringstream ss(s);
    std::string tok;
    while (std::getline(ss, tok, ','))
    {
        if (tok.empty())
        {
            continue;
        }
        char* end = nullptr;
        unsigned long x = std::strtoul(tok.c_str(), &end, 10);
        if (*end != '\0')
        {
            std::fprintf(stderr, "tonic_newreno_ns3: bad --drops entry '%s'\n", tok.c_str());
            std::exit(2);
        }
        v.push_back(static_cast<uint32_t>(x));
    }
    return v;
}

void
PrintParams(Ptr<Node> n)
{
    // Create a throw-away socket to read the attribute values in force.
    Ptr<Socket> s = Socket::CreateSocket(n, TcpSocketFactory::GetTypeId());
    const char* names[] = {"SegmentSize",
                           "InitialCwnd",
                           "InitialSlowStartThreshold",
                           "DelAckCount",
                           "DelAckTimeout",
                           "RcvBufSize",
                           "SndBufSize",
                           "MinRto",
                           "ClockGranularity",
                           "ReTxThreshold",
                           "LimitedTransmit",
                           "Sack",
                           "Timestamp",
                           "WindowScaling",
                           "TcpNoDelay",
                           "DataRetries",
                           "ConnTimeout"};
    std::string line = "PARAMS";
    for (const char* nm : names)
    {
        // Attributes that do not exist on this TypeId are skipped.
        struct TypeId::AttributeInformation info;
        if (s->GetInstanceTypeId().LookupAttributeByName(nm, &info))
        {
            Ptr<AttributeValue> val = info.checker->Create();
            s->GetAttribute(nm, *val);
            line += std::string(" ") + nm + "=" + val->SerializeToString(info.checker);
        }
    }
    TypeIdValue cc;
    TypeIdValue rec;
    Ptr<TcpL4Protocol> tcp = n->GetObject<TcpL4Protocol>();
    tcp->GetAttribute("SocketType", cc);
    tcp->GetAttribute("RecoveryType", rec);
    line += " SocketType=" + cc.Get().GetName() + " RecoveryType=" + rec.Get().GetName();
    std::printf("%s\n", line.c_str());
    s->Close();
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string mode = "single";
    double duration = -1;
    std::string drops;
    std::string csv;
    uint32_t rwnd = 128000;
    uint32_t sndbuf = 0; // 0: same as rwnd (see README: ns-3.37 crash)
    uint32_t flowsPerHost = 100;
    uint32_t staggerNs = 0;
    uint32_t seed = 1;
    bool cwndInfl = false;
    bool params = false;
    bool rxRows = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("mode", "single | many", mode);
    cmd.AddValue("duration", "simulated seconds (default 1.0 single, 5.0 many)", duration);
    cmd.AddValue("drops", "single mode: 0-based receiver-NIC packet ordinals to drop", drops);
    cmd.AddValue("csv", "output CSV file", csv);
    cmd.AddValue("rwnd-bytes", "receiver buffer RcvBufSize (advertised window)", rwnd);
    cmd.AddValue("sndbuf-bytes", "sender buffer SndBufSize (0: = rwnd-bytes)", sndbuf);
    cmd.AddValue("flows-per-host", "many mode: flows per sender host", flowsPerHost);
    cmd.AddValue("stagger-ns", "many mode: flow i starts at i*stagger-ns", staggerNs);
    cmd.AddValue("seed", "ns-3 RNG seed (nothing in this program draws random numbers)", seed);
    cmd.AddValue("cwnd-infl", "single mode: also write cwnd_infl rows", cwndInfl);
    cmd.AddValue("rx-rows", "single mode: also write rx rows (receiver-NIC ordinals)", rxRows);
    cmd.AddValue("params", "print the TCP attribute values in force", params);
    // ns-3's CommandLine rejects an empty value ("--drops="); drop such
    // arguments so an empty drop list can be passed as --drops=.
    std::vector<char*> args;
    for (int i = 0; i < argc; i++)
    {
        if (std::string(argv[i]) != "--drops=")
        {
            args.push_back(argv[i]);
        }
    }
    cmd.Parse(static_cast<int>(args.size()), args.data());

    bool single = (mode == "single");
    if (!single && mode != "many")
    {
        std::fprintf(stderr, "tonic_newreno_ns3: --mode must be single or many\n");
        return 2;
    }
    if (duration <= 0)
    {
        duration = single ? 1.0 : 5.0;
    }
    g_cwndInfl = cwndInfl;
    g_rxRows = rxRows;
    if (sndbuf == 0)
    {
        // ns-3.37's TcpSocketBase::SendPendingData calls SendDataPacket with
        // a 0-byte size (and segfaults in TcpRateLinux::SkbSent) when, in
        // fast recovery, the peer's receive window is exhausted but the send
        // buffer holds unsent data beyond it.  With SndBufSize == RcvBufSize
        // the send buffer never holds data beyond SND.UNA + rwnd, so both
        // limits are the same (outstanding data <= rwnd from SND.UNA) and the
        // crash cannot happen.  The application refills the buffer from the
        // send callback as soon as an ACK frees space.
        sndbuf = rwnd;
    }
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(1);

    // TCP configuration (paper section 6.2.1).
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kSeg));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rwnd));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndbuf));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));

    uint32_t nHosts = single ? 2 : 3;
    NodeContainer hosts;
    hosts.Create(nHosts);
    NodeContainer sw;
    sw.Create(1);
    InternetStackHelper stack;
    stack.Install(hosts);
    stack.Install(sw);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("2.5us"));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(kHostBuf));

    Ipv4AddressHelper addr;
    std::vector<Ipv4Address> hostAddr(nHosts);
    std::vector<Ptr<PointToPointNetDevice>> hostDev(nHosts);
    std::vector<Ptr<PointToPointNetDevice>> swDev(nHosts);
    TrafficControlHelper tch;
    for (uint32_t i = 0; i < nHosts; i++)
    {
        NetDeviceContainer d = p2p.Install(hosts.Get(i), sw.Get(0));
        std::ostringstream net;
        net << "10.0." << i << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.0");
        Ipv4InterfaceContainer ifc = addr.Assign(d);
        hostAddr[i] = ifc.GetAddress(0);
        hostDev[i] = DynamicCast<PointToPointNetDevice>(d.Get(0));
        swDev[i] = DynamicCast<PointToPointNetDevice>(d.Get(1));
        // Ipv4AddressHelper::Assign installs the default root queue disc;
        // remove it so the device queues are the only buffers.
        tch.Uninstall(d);
        swDev[i]->GetQueue()->SetMaxSize(QueueSize(kSwitchBuf));
        swDev[i]->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&SwDropCb));
        hostDev[i]->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&HostDropCb));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    // Without a root queue disc, TrafficControlLayer::Send hands a packet to
    // the device only if the device's (flow-controlled) transmit queue is not
    // stopped, and otherwise drops it itself: a PointToPointNetDevice stops its
    // queue when it cannot take one more maximum-size packet.  So the switch's
    // overflow drops show up on the switch node's TrafficControlLayer "TcDrop"
    // trace, not on the device queue's "Drop" trace; count both.
    sw.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop",
        MakeCallback(&SwDropCb));
    for (uint32_t i = 0; i < nHosts; i++)
    {
        hosts.Get(i)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
            "TcDrop",
            MakeCallback(&HostDropCb));
    }

    uint32_t rxHost = single ? 1 : 2;
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), kPort));
    ApplicationContainer sinks = sinkHelper.Install(hosts.Get(rxHost));
    sinks.Start(Seconds(0));

    if (params)
    {
        PrintParams(hosts.Get(0));
    }

    std::set<uint32_t> want;
    if (single)
    {
        std::vector<uint32_t> list = ParseList(drops);
        // ns3::ReceiveListErrorModel counts every packet handed to
        // DoCorrupt (m_timesInvoked, incremented first) and drops packet k
        // when m_timesInvoked - 1 == k, i.e. its list is already 0-based
        // over the packets the device receives (SYN = 0).  The list is
        // passed through unchanged; RxDropCb checks the ordinals.
        std::list<uint32_t> l(list.begin(), list.end());
        want.insert(list.begin(), list.end());
        Ptr<ReceiveListErrorModel> em = CreateObject<ReceiveListErrorModel>();
        em->SetList(l);
        hostDev[rxHost]->SetReceiveErrorModel(em);
        hostDev[rxHost]->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(&RxEndCb));
        hostDev[rxHost]->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&RxDropCb));
        g_flows.resize(1);
        g_flows[0].traced = true;
    }
    else
    {
        g_flows.resize(2 * flowsPerHost);
    }

    if (!csv.empty())
    {
        g_csv = std::fopen(csv.c_str(), "w");
        if (!g_csv)
        {
            std::perror(csv.c_str());
            return 1;
        }
        std::fprintf(g_csv, single ? "t_us,kind,seq,value\n" : "flow,host,bytes_acked,mbps\n");
    }

    Address dst = InetSocketAddress(hostAddr[rxHost], kPort);
    for (uint32_t i = 0; i < g_flows.size(); i++)
    {
        Flow* f = &g_flows[i];
        f->id = i;
        f->host = single ? 0 : i / flowsPerHost;
        Time start = NanoSeconds(static_cast<uint64_t>(i) * staggerNs);
        Simulator::Schedule(start, &StartFlow, f, hosts.Get(f->host), dst);
    }

    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    double hostS = std::chrono::duration<double>(t1 - t0).count();
    double endUs = duration * 1e6;

    int rc = 0;
    if (single)
    {
        Flow& f = g_flows[0];
        double mean = 0;
        if (f.cwndSeen && endUs > f.cwndFirstT)
        {
            double area = f.cwndArea + f.cwndLast * (endUs - f.cwndLastT);
            mean = area / (endUs - f.cwndFirstT);
        }
        // Check the drops happened at exactly the requested ordinals
        // (those the run reached).
        std::set<uint32_t> got(g_droppedOrdinals.begin(), g_droppedOrdinals.end());
        for (uint32_t k : want)
        {
            if (k < g_rxOrdinal && !got.count(k))
            {
                std::fprintf(stderr, "tonic_newreno_ns3: ordinal %u was not dropped\n", k);
                rc = 1;
            }
        }
        for (uint32_t k : got)
        {
            if (!want.count(k))
            {
                std::fprintf(stderr, "tonic_newreno_ns3: ordinal %u dropped unasked\n", k);
                rc = 1;
            }
        }
        std::printf("INFO rx_packets=%" PRIu64 " data_tx=%" PRIu64 " retx=%" PRIu64
                    " ca_loss_entries=%u switch_drops=%" PRIu64 " host_drops=%" PRIu64 "\n",
                    g_rxOrdinal,
                    f.dataTx,
                    f.reTx,
                    f.losses,
                    g_swDrops,
                    g_hostDrops);
        std::printf("RESULT ns3_fast_rtx=%u ns3_timeouts=%u ns3_cwnd_mean_bytes=%.1f "
                    "ns3_segments_acked=%" PRIu64 " ns3_host_s=%.3f\n",
                    f.fastRtx,
                    f.timeouts,
                    mean,
                    f.ackedBytes / kSeg,
                    hostS);
    }
    else
    {
        double sum = 0;
        double sumSq = 0;
        uint64_t fr = 0;
        uint64_t to = 0;
        uint64_t rtx = 0;
        for (const Flow& f : g_flows)
        {
            double mbps = f.ackedBytes * 8.0 / duration / 1e6;
            sum += mbps;
            sumSq += mbps * mbps;
            fr += f.fastRtx;
            to += f.timeouts;
            rtx += f.reTx;
            if (g_csv)
            {
                std::fprintf(g_csv, "%u,%u,%" PRIu64 ",%.3f\n", f.id, f.host, f.ackedBytes, mbps);
            }
        }
        double n = static_cast<double>(g_flows.size());
        double jain = sumSq > 0 ? sum * sum / (n * sumSq) : 0;
        std::printf("INFO fast_rtx=%" PRIu64 " timeouts=%" PRIu64 " retx=%" PRIu64
                    " switch_drops=%" PRIu64 " host_drops=%" PRIu64 "\n",
                    fr,
                    to,
                    rtx,
                    g_swDrops,
                    g_hostDrops);
        std::printf("RESULT ns3_flows=%zu ns3_mean_mbps=%.3f ns3_jain=%.6f ns3_host_s=%.3f\n",
                    g_flows.size(),
                    sum / n,
                    jain,
                    hostS);
    }
    if (g_csv)
    {
        std::fclose(g_csv);
    }
    Simulator::Destroy();
    return rc;
}

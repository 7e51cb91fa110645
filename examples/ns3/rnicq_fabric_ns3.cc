/* rnicq_fabric_ns3 -- a scenario of the composed RNIC's fabric as an ns-3 program (issue 34;
 * docs/ns3.md): every host an RnicqNicDevice, every switch port an RnicqSwitchDevice, every
 * link an ns-3 point-to-point channel; with --mpi (an ns-3 built with MPI, tools/deps.sh
 * ns3-mpi; run under mpirun -np R), the nodes split over the ranks (rnicq_ext.h's partition:
 * a fat tree's pods whole, its core switches spread) and the links between ranks are ns-3's
 * remote point-to-point channels.
 *
 *   build/rnicq_fabric_ns3 --scenario=scenarios/websearch_fattree.conf --fct-csv=out.csv [--flow-trace=f.csv]
 *   mpirun -np 2 build/rnicq_fabric_ns3_mpi --mpi=1 --scenario=... --fct-csv=out.csv
 *
 * Prints the fabric's RESULT lines (rank 0: the workload's, `RESULT ns3_fabric=1 ... digest=`),
 * then `RESULT ns3_rank=1 rank= ... wall_s= rss_kb= cycles_run= events=` per rank (events: ns-3's own) and `RESULT ns3=1
 * ranks= cycle_ps= lookahead_ps= late_transmits= bad_frames= wall_s_max= rss_kb_max=` (rank 0). */
#include "rnicq-ns3.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/ppp-header.h"
#ifdef RNICQ_NS3_MPI
#include "ns3/mpi-interface.h"
#include <mpi.h>
#endif
#include <chrono>
#include <cstdio>
#include <sys/resource.h>

using namespace ns3;

/* --flow-trace: the FlowComplete trace source's calls, one line per flow as it completes */
static void
FlowTrace(FILE* f, uint32_t id, uint32_t src, uint32_t dst, uint64_t size, uint64_t startNs, uint64_t fctNs)
{
    std::fprintf(f, "%.3f,%u,%u,%u,%llu,%llu,%llu\n", Simulator::Now().GetNanoSeconds() / 1000.0, id, src, dst,
                 (unsigned long long)size, (unsigned long long)startNs, (unsigned long long)fctNs);
}

int
main(int argc, char* argv[])
{
    std::string scenario, fctCsv, set, duration, flowTrace;
    bool mpi = false, badFrame = false;
    Time::SetResolution(Time::PS); /* before any Time: the engines' cycle is a whole number of ps */
    CommandLine cmd(__FILE__);
    cmd.AddValue("scenario", "scenario file (docs/scenario.md)", scenario);
    cmd.AddValue("fct-csv", "per-flow results file", fctCsv);
    cmd.AddValue("set", "more scenario keys: section.key=value;section.key=value", set);
    cmd.AddValue("duration-us", "run.duration_us", duration);
    cmd.AddValue("mpi", "run on ns-3's distributed simulator (mpirun -np R)", mpi);
    cmd.AddValue("flow-trace", "a file of RnicqFabric/FlowComplete's calls (t_us,id,src,dst,size,start_ns,fct_ns; "
                 "this rank's flows)", flowTrace);
    cmd.AddValue("bad-frame", "the tests': a malformed packet over host 0's link and a Send from a stack at time 0 "
                 "(both refused and counted; the run's results unchanged)", badFrame);
    cmd.Parse(argc, argv);
#ifdef RNICQ_NS3_MPI
    if (mpi)
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DistributedSimulatorImpl"));
        MpiInterface::Enable(&argc, &argv);
    }
#else
    if (mpi)
    {
        std::fprintf(stderr, "rnicq_fabric_ns3: built without MPI (build/rnicq_fabric_ns3_mpi has it)\n");
        return 2;
    }
#endif
    auto t0 = std::chrono::steady_clock::now();
    RnicqHelper rnic;
    rnic.SetFabricAttribute("Scenario", StringValue(scenario));
    rnic.SetFabricAttribute("FctCsv", StringValue(fctCsv));
    rnic.SetFabricAttribute("Set", StringValue(set));
    rnic.SetFabricAttribute("DurationUs", StringValue(duration));
    NodeContainer hosts, switches;
    rnic.CreateNodes(hosts, switches);
    rnic.Connect();
    FILE* traceFile = nullptr;
    if (!flowTrace.empty())
    {
        if (!(traceFile = std::fopen(flowTrace.c_str(), "w")))
        {
            std::perror(flowTrace.c_str());
            return 1;
        }
        std::fprintf(traceFile, "t_us,id,src,dst,size_bytes,start_ns,fct_ns\n");
        rnic.GetFabric()->TraceConnectWithoutContext("FlowComplete", MakeBoundCallback(&FlowTrace, traceFile));
    }
    Ptr<RnicqPortDevice> host0 = DynamicCast<RnicqPortDevice>(hosts.Get(0)->GetDevice(0));
    if (badFrame && rnic.GetFabric()->GetRankOf(0) == rnic.GetFabric()->GetRank())
    {
        Simulator::Schedule(Seconds(0), [host0]() {
            Ptr<Packet> p = Create<Packet>(10); /* PPP-framed, but no RnicqHeader */
            PppHeader ppp;
            ppp.SetProtocol(0x0021);
            p->AddHeader(ppp);
            DynamicCast<PointToPointChannel>(host0->GetChannel())->TransmitStart(p, host0, Seconds(0));
            host0->Send(Create<Packet>(100), host0->GetBroadcast(), 0x0800);
        });
    }
    rnic.Start();
    Simulator::Run();
    Ptr<RnicqFabric> f = rnic.GetFabric();
    rnic.Finish();
    if (traceFile && std::fclose(traceFile) != 0)
    {
        std::perror(flowTrace.c_str());
        return 1;
    }
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    uint64_t rss = (uint64_t)ru.ru_maxrss, lookahead = UINT64_MAX, wallMs = (uint64_t)(wall * 1000.0);
    for (uint32_t w = 0; w < f->GetWires(); w++)
    {
        uint32_t a, ap, b, bp;
        uint64_t prop, rate;
        f->GetWire(w, a, ap, b, bp, prop, rate);
        if (f->GetRankOf(a) != f->GetRankOf(b) || f->GetRanks() == 1)
        {
            uint64_t ps = (uint64_t)f->GetChannelDelay(prop).GetPicoSeconds();
            lookahead = ps < lookahead ? ps : lookahead;
        }
    }
    std::fflush(stdout);
    uint64_t refusedSends = 0;
    for (NodeContainer::Iterator n = hosts.Begin(); n != hosts.End(); ++n)
    {
        refusedSends += DynamicCast<RnicqPortDevice>((*n)->GetDevice(0))->GetRefusedSends();
    }
    std::printf("RESULT ns3_rank=1 rank=%u ranks=%u wall_s=%.3f rss_kb=%llu cycles_run=%llu events=%llu "
                "refused_sends=%llu\n",
                f->GetRank(), f->GetRanks(), wall, (unsigned long long)rss, (unsigned long long)f->GetCyclesRun(),
                (unsigned long long)Simulator::GetEventCount(), (unsigned long long)refusedSends);
    std::fflush(stdout);
    uint64_t maxes[2] = {rss, wallMs};
#ifdef RNICQ_NS3_MPI
    if (mpi)
    {
        MPI_Allreduce(MPI_IN_PLACE, maxes, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    }
#endif
    if (f->GetRank() == 0)
    {
        std::printf("RESULT ns3=1 ranks=%u cycle_ps=%llu lookahead_ps=%llu late_transmits=%llu bad_frames=%llu "
                    "wall_s_max=%.3f rss_kb_max=%llu\n",
                    f->GetRanks(), (unsigned long long)(f->GetCycleTime(1) - f->GetCycleTime(0)).GetPicoSeconds(),
                    (unsigned long long)lookahead, (unsigned long long)f->GetLateTransmits(),
                    (unsigned long long)f->GetBadFrames(),
                    (double)maxes[1] / 1000.0, (unsigned long long)maxes[0]);
    }
    std::fflush(stdout);
    Simulator::Destroy();
#ifdef RNICQ_NS3_MPI
    if (mpi)
    {
        MpiInterface::Disable();
    }
#endif
    return f->IsDrained() ? 0 : 3;
}

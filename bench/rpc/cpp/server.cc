// The gRPC C++ peer of bench/rpc: the same two methods as vi-continue, on the same protos.
//
// Health/Check answers SERVING; VisualSearch/Query answers a fixed response read at start-up
// (the serialized QueryResponse vi-continue itself gave for the benchmark's request), so both
// servers put identical message bytes on the wire and only the transports differ. Uses the
// callback API, gRPC C++'s recommended server model.
//
// Usage: grpc-cpp-server PORT QUERY_RESPONSE_FILE
#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "grpc/health/v1/health.grpc.pb.h"
#include "search.grpc.pb.h"

namespace {

class Health final : public grpc::health::v1::Health::CallbackService {
    grpc::ServerUnaryReactor* Check(grpc::CallbackServerContext* context,
                                    const grpc::health::v1::HealthCheckRequest* request,
                                    grpc::health::v1::HealthCheckResponse* response) override {
        auto* reactor = context->DefaultReactor();
        if (request->service().empty() || request->service() == "vicontinue.v1.VisualSearch") {
            response->set_status(grpc::health::v1::HealthCheckResponse::SERVING);
            reactor->Finish(grpc::Status::OK);
        } else {
            reactor->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown service"));
        }
        return reactor;
    }
};

class Search final : public vicontinue::v1::VisualSearch::CallbackService {
public:
    explicit Search(vicontinue::v1::QueryResponse fixed) : fixed_(std::move(fixed)) {}

    grpc::ServerUnaryReactor* Query(grpc::CallbackServerContext* context,
                                    const vicontinue::v1::QueryRequest* /*request*/,
                                    vicontinue::v1::QueryResponse* response) override {
        response->CopyFrom(fixed_);
        auto* reactor = context->DefaultReactor();
        reactor->Finish(grpc::Status::OK);
        return reactor;
    }

private:
    const vicontinue::v1::QueryResponse fixed_;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: grpc-cpp-server PORT QUERY_RESPONSE_FILE\n";
        return 2;
    }
    std::ifstream file(argv[2], std::ios::binary);
    std::stringstream bytes;
    bytes << file.rdbuf();
    vicontinue::v1::QueryResponse fixed;
    if (!file || !fixed.ParseFromString(bytes.str())) {
        std::cerr << "error: cannot read a QueryResponse from " << argv[2] << "\n";
        return 2;
    }
    Health health;
    Search search(std::move(fixed));
    grpc::ServerBuilder builder;
    builder.AddListeningPort(std::string("127.0.0.1:") + argv[1], grpc::InsecureServerCredentials());
    builder.RegisterService(&health);
    builder.RegisterService(&search);
    std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
    if (!server) {
        std::cerr << "error: cannot listen on port " << argv[1] << "\n";
        return 3;
    }
    std::cerr << "grpc-cpp-server: serving on 127.0.0.1:" << argv[1] << std::endl;
    server->Wait();
    return 0;
}

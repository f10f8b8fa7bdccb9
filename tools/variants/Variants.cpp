// One front end, several IRGens: the device front end's bitcode for each of a few code-generation
// settings (-ftrivial-auto-var-init=MODE, -fsanitize=CHECKS in trap mode), from one parse.
//
// The oracle's confirmation of a kept candidate builds it with each guard's settings: the UB
// guard's sanitizer checks and the init guard's two -ftrivial-auto-var-init modes. Those settings
// change what IRGen emits, not what Sema decides, yet each build parsed and instantiated the whole
// file again: on library code (composable_kernel) Sema is three quarters of a front end.
//
// Loaded into a front-end run (-fplugin, before the main action), it records what Sema hands the
// code generator (top-level declarations, inline definitions, instantiated static members, tag
// definitions, ...) in order, and at the end of the translation unit replays that record into a
// fresh code generator per variant, with the variant's settings in the language and codegen
// options, and writes the module as the front end would (-emit-llvm-bc, -disable-llvm-passes).
// Each variant is one argument, `-plugin-arg-variants PATH=SETTING`, SETTING being `init=zero`,
// `init=pattern` or `sanitize=CHECK,CHECK,...`.
//
// Whether a variant is the bitcode the front end run with the flag itself writes is not assumed:
// the oracle compares them on the original before it uses this (interestingness/compiler/variants.py).

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclGroup.h"
#include "clang/Basic/Sanitizers.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/CodeGen/BackendUtil.h"
#include "clang/CodeGen/ModuleBuilder.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace clang;

namespace {

struct Variant {
  std::string Path, Setting;
};

// Every call Sema makes on the code generator's consumer, in order, to be made again on another.
class Recorder : public ASTConsumer {
public:
  Recorder(CompilerInstance &CI, std::vector<Variant> Variants) : CI(CI), Variants(std::move(Variants)) {}

  bool HandleTopLevelDecl(DeclGroupRef D) override {
    Log.push_back([D](CodeGenerator &G) { G.HandleTopLevelDecl(D); });
    return true;
  }
  void HandleInlineFunctionDefinition(FunctionDecl *D) override {
    Log.push_back([D](CodeGenerator &G) { G.HandleInlineFunctionDefinition(D); });
  }
  void HandleInterestingDecl(DeclGroupRef D) override { HandleTopLevelDecl(D); }
  void HandleTagDeclDefinition(TagDecl *D) override {
    Log.push_back([D](CodeGenerator &G) { G.HandleTagDeclDefinition(D); });
  }
  void HandleTagDeclRequiredDefinition(const TagDecl *D) override {
    Log.push_back([D](CodeGenerator &G) { G.HandleTagDeclRequiredDefinition(D); });
  }
  void HandleCXXStaticMemberVarInstantiation(VarDecl *D) override {
    Log.push_back([D](CodeGenerator &G) { G.HandleCXXStaticMemberVarInstantiation(D); });
  }
  void CompleteTentativeDefinition(VarDecl *D) override {
    Log.push_back([D](CodeGenerator &G) { G.CompleteTentativeDefinition(D); });
  }
  void CompleteExternalDeclaration(DeclaratorDecl *D) override {
    Log.push_back([D](CodeGenerator &G) { G.CompleteExternalDeclaration(D); });
  }
  void AssignInheritanceModel(CXXRecordDecl *D) override {
    Log.push_back([D](CodeGenerator &G) { G.AssignInheritanceModel(D); });
  }
  void HandleVTable(CXXRecordDecl *D) override {
    Log.push_back([D](CodeGenerator &G) { G.HandleVTable(D); });
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (CI.getDiagnostics().hasErrorOccurred())
      return;
    if (!CI.getCodeGenOpts().LinkBitcodeFiles.empty()) {
      fail("bitcode linked into the module (-mlink-builtin-bitcode) is not supported");
      return;
    }
    for (const Variant &V : Variants)
      emit(Ctx, V);
  }

private:
  void fail(const std::string &Message) {
    DiagnosticsEngine &D = CI.getDiagnostics();
    D.Report(D.getCustomDiagID(DiagnosticsEngine::Error, "variants plugin: %0")) << Message;
  }

  // Set the variant's options; the returned function puts the previous ones back.
  std::function<void()> apply(const std::string &Setting) {
    LangOptions &LO = CI.getLangOpts();
    CodeGenOptions &CG = CI.getCodeGenOpts();
    auto Kind = LO.getTrivialAutoVarInit();
    SanitizerSet San = LO.Sanitize, Trap = CG.SanitizeTrap;
    std::function<void()> Restore = [&LO, &CG, Kind, San, Trap] {
      LO.setTrivialAutoVarInit(Kind);
      LO.Sanitize = San;
      CG.SanitizeTrap = Trap;
    };
    StringRef S(Setting);
    if (S == "init=zero")
      LO.setTrivialAutoVarInit(LangOptions::TrivialAutoVarInitKind::Zero);
    else if (S == "init=pattern")
      LO.setTrivialAutoVarInit(LangOptions::TrivialAutoVarInitKind::Pattern);
    else if (S.consume_front("sanitize=")) {
      SmallVector<StringRef, 16> Checks;
      S.split(Checks, ',', -1, false);
      for (StringRef C : Checks) {
        SanitizerMask K = expandSanitizerGroups(parseSanitizerValue(C, /*AllowGroups=*/true));
        if (!K) {
          Restore();
          return nullptr;
        }
        LO.Sanitize.set(K, true);
        CG.SanitizeTrap.set(K, true);
      }
    } else
      return nullptr;
    return Restore;
  }

  void emit(ASTContext &Ctx, const Variant &V) {
    std::function<void()> Restore = apply(V.Setting);
    if (!Restore) {
      fail("unknown setting '" + V.Setting + "' (init=zero, init=pattern or sanitize=CHECK,...)");
      return;
    }
    llvm::LLVMContext LLVMCtx;
    std::unique_ptr<CodeGenerator> Gen =
        CreateLLVMCodeGen(CI, CI.getFrontendOpts().Inputs[0].getFile(), LLVMCtx);
    Gen->Initialize(Ctx);
    for (auto &Call : Log)
      Call(*Gen);
    Gen->HandleTranslationUnit(Ctx);
    std::error_code EC;
    auto OS = std::make_unique<llvm::raw_fd_ostream>(V.Path, EC);
    if (EC) {
      Restore();
      fail("cannot write " + V.Path + ": " + EC.message());
      return;
    }
    if (llvm::Module *M = Gen->GetModule())
      emitBackendOutput(CI, CI.getCodeGenOpts(), Ctx.getTargetInfo().getDataLayoutString(), M, Backend_EmitBC,
                        CI.getVirtualFileSystemPtr(), std::move(OS));
    Restore();
  }

  CompilerInstance &CI;
  std::vector<Variant> Variants;
  std::vector<std::function<void(CodeGenerator &)>> Log;
};

class Action : public PluginASTAction {
  std::vector<Variant> Variants;

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, StringRef) override {
    return std::make_unique<Recorder>(CI, Variants);
  }

  bool ParseArgs(const CompilerInstance &CI, const std::vector<std::string> &Args) override {
    for (const std::string &A : Args) {
      size_t Eq = A.find('=');
      if (Eq == std::string::npos || Eq == 0) {
        DiagnosticsEngine &D = CI.getDiagnostics();
        D.Report(D.getCustomDiagID(DiagnosticsEngine::Error, "variants plugin: argument '%0' is not PATH=SETTING"))
            << A;
        return false;
      }
      Variants.push_back({A.substr(0, Eq), A.substr(Eq + 1)});
    }
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace

static FrontendPluginRegistry::Add<Action> X("variants", "IRGen with several settings after one parse");

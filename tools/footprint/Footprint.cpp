// The footprint of the file under reduction: which of its declarations the kept kernels reach,
// and which conditions are the same in every instantiation (issue 41).
//
// Loaded into the oracle's own device front end (-fsyntax-only, the oracle's flags), it runs
// after the main action, when Sema has instantiated everything the translation unit needs, and
// prints one JSON object on stdout (reducer/text/footprint.py reads it):
//
//   {"size": N, "kernels": [...], "entries": [{"begin", "end", "kind", "name", "parent",
//    "reached"}...], "conditions": [{"kind", "value", "begin", "end", "cond", "then", "else",
//    "init"}...], "plain": [{"kernel", "name", "body", "namespaces", "aliases", "text"}...],
//    "callees": [{"name", "body", "at", "namespaces", "uses", "opens", "aliases", "text"}...],
//    "aliases": [{"name", "at", "namespaces", "text"}...], "idle": [[begin, end]...]}
//
// `idle`: the explicit instantiations that make no kept kernel exist (their kernel is plain, or
// another's), which are then no roots. `plain`: each target kernel instantiated from a template, printed as a plain definition (see
// "plain kernels" below). `callees`: the function templates a plain kernel's code calls with one
// argument list, printed the same way under a fresh name. `aliases`: the `__plain_tN` aliases
// these definitions declare, each once for all of them (each definition lists those it names).
// A kernel asked for by a mangled name that no kernel has any more is
// followed by its base name, as the oracle follows a renamed target.
//
// An entry is a declaration spelled in the main file (at namespace scope or as a class member)
// that a reduction may delete as a whole: its byte range covers its template header, its
// attributes and its trailing `;`. Declarations sharing text (`struct S {} s;`, `int a, b;`) are
// one entry. Everything else the file spells (namespaces, explicit instantiations, using
// directives, fields) is not an entry: it stays, so it is walked as a root.
//
// Why reachability is computed here and not read from clang's `used`/`referenced` marks: those
// marks sit on instantiations, not on the text that was written, and not on every redeclaration
// or on the types a body names; a file cut down to the marked declarations does not compile.
// Here every reached declaration -- an instantiation, a specialization, an implicit member -- is
// mapped to the text that produced it: by its location (an instantiation keeps its pattern's
// locations), through its patterns (getTemplateInstantiationPattern and friends), and over all
// its redeclarations; marking a member marks the class around it.
//
// The footprint is a proposal: every candidate made from it goes through the oracle.

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclFriend.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprConcepts.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace clang;

namespace {

// ---------------------------------------------------------------------------------------------
// Byte ranges in the main file.

struct Span {
  unsigned Begin = 0, End = 0;
};

class MainFile {
public:
  MainFile(ASTContext &Ctx)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), ID(SM.getMainFileID()), Text(SM.getBufferData(ID)) {}

  unsigned size() const { return Text.size(); }

  // The offset of a location as the file spells it: a macro's expansion counts where the macro
  // was invoked, since that is the text a reduction edits.
  std::optional<unsigned> offset(SourceLocation Loc) const {
    if (Loc.isInvalid())
      return std::nullopt;
    Loc = SM.getExpansionLoc(Loc);
    auto [File, Offset] = SM.getDecomposedLoc(Loc);
    if (File != ID)
      return std::nullopt;
    return Offset;
  }

  // The text of a token range, from its first token to the end of its last, with a trailing `;`
  // when `Semicolon` (a declaration's, or a statement's, which clang leaves out of the range).
  std::optional<Span> span(SourceRange R, bool Semicolon) const {
    if (R.isInvalid())
      return std::nullopt;
    CharSourceRange Begin = SM.getExpansionRange(R.getBegin());
    CharSourceRange End = SM.getExpansionRange(R.getEnd());
    auto B = offset(Begin.getBegin());
    SourceLocation Last = End.getEnd();
    if (End.isTokenRange())
      Last = Lexer::getLocForEndOfToken(Last, 0, SM, Ctx.getLangOpts());
    auto E = offset(Last);
    if (!B || !E || *E < *B)
      return std::nullopt;
    unsigned Stop = *E;
    if (Semicolon) {
      unsigned I = Stop;
      while (I < Text.size() && (Text[I] == ' ' || Text[I] == '\t' || Text[I] == '\n' || Text[I] == '\r'))
        ++I;
      if (I < Text.size() && Text[I] == ';')
        Stop = I + 1;
    }
    return Span{*B, Stop};
  }

  // A declaration that is not a definition ends at its `;`, which clang's range may stop short
  // of: a trailing attribute (`typedef int v4 __attribute__((ext_vector_type(4)));`), a type
  // whose range ends early (`_BitInt(4)`). The first `;` outside brackets, unless a `}` closes
  // the scope first.
  unsigned declarationEnd(unsigned Stop) const {
    if (Stop == 0 || Text[Stop - 1] == ';' || Text[Stop - 1] == '}')
      return Stop;
    int Depth = 0;
    for (unsigned I = Stop; I < Text.size(); ++I) {
      char C = Text[I];
      if (C == '(' || C == '[' || C == '{')
        ++Depth;
      else if (C == ')' || C == ']' || C == '}') {
        if (--Depth < 0)
          return Stop;
      } else if (C == ';' && Depth == 0)
        return I + 1;
    }
    return Stop;
  }

  bool contains(StringRef S) const { return Text.contains(S); }
  // One more than the largest N in `PrefixN` in the file (0: none).
  unsigned nextNumber(StringRef Prefix) const {
    unsigned Next = 0;
    for (size_t At = Text.find(Prefix); At != StringRef::npos; At = Text.find(Prefix, At + 1)) {
      unsigned N = 0;
      size_t I = At + Prefix.size(), Digits = 0;
      for (; I < Text.size() && isdigit(static_cast<unsigned char>(Text[I])); ++I, ++Digits)
        N = N * 10 + (Text[I] - '0');
      if (Digits)
        Next = std::max(Next, N + 1);
    }
    return Next;
  }

  // A range whose two ends are both written in the main file, not made by a macro: conditions are
  // only reported where a reduction can replace their text.
  bool plain(SourceRange R) const {
    return R.isValid() && R.getBegin().isFileID() && R.getEnd().isFileID() && SM.getFileID(R.getBegin()) == ID &&
           SM.getFileID(R.getEnd()) == ID;
  }

  ASTContext &Ctx;
  SourceManager &SM;
  FileID ID;
  StringRef Text;
};

// ---------------------------------------------------------------------------------------------
// Entries: what a reduction may delete.

struct Entry {
  Span Range;
  int Parent = -1;
  std::vector<const Decl *> Decls;
  bool Reached = false;
};

std::string kindOf(const Decl *D) {
  if (auto *F = dyn_cast<FriendDecl>(D))
    return F->getFriendDecl() ? "Friend" + std::string(F->getFriendDecl()->getDeclKindName()) : "Friend";
  return D->getDeclKindName();
}

std::string nameOf(const Decl *D) {
  if (auto *F = dyn_cast<FriendDecl>(D))
    D = F->getFriendDecl() ? F->getFriendDecl() : D;
  if (auto *N = dyn_cast<NamedDecl>(D))
    return N->getQualifiedNameAsString();
  return "";
}

// A hidden friend defined in its class is deletable like a member function; other friend
// declarations give access and stay.
bool isFriendDefinition(const FriendDecl *F) {
  const NamedDecl *N = F->getFriendDecl();
  if (!N)
    return false;
  if (auto *T = dyn_cast<FunctionTemplateDecl>(N))
    N = T->getTemplatedDecl();
  auto *FD = dyn_cast<FunctionDecl>(N);
  return FD && FD->isThisDeclarationADefinition();
}

static bool explicitInstantiation(const Decl *D) {
  TemplateSpecializationKind K = TSK_Undeclared;
  if (auto *S = dyn_cast<ClassTemplateSpecializationDecl>(D))
    K = S->getSpecializationKind();
  else if (auto *V = dyn_cast<VarTemplateSpecializationDecl>(D))
    K = V->getSpecializationKind();
  return K == TSK_ExplicitInstantiationDefinition || K == TSK_ExplicitInstantiationDeclaration;
}

// Whether a declaration is one a reduction may delete. Class template specializations are, when
// written as explicit specializations; explicit instantiations are not (they are roots).
bool deletable(const Decl *D) {
  if (D->isImplicit())
    return false;
  if (auto *S = dyn_cast<ClassTemplateSpecializationDecl>(D))
    return isa<ClassTemplatePartialSpecializationDecl>(S) ||
           S->getSpecializationKind() == TSK_ExplicitSpecialization;
  if (auto *S = dyn_cast<VarTemplateSpecializationDecl>(D))
    return isa<VarTemplatePartialSpecializationDecl>(S) ||
           S->getSpecializationKind() == TSK_ExplicitSpecialization;
  if (auto *F = dyn_cast<FunctionDecl>(D)) {
    auto K = F->getTemplateSpecializationKind();
    return K == TSK_Undeclared || K == TSK_ExplicitSpecialization;
  }
  if (auto *F = dyn_cast<FriendDecl>(D))
    return isFriendDefinition(F);
  return isa<FunctionTemplateDecl, ClassTemplateDecl, VarTemplateDecl, TypeAliasTemplateDecl, ConceptDecl,
             RecordDecl, VarDecl, TypedefNameDecl, EnumDecl, UsingDecl, StaticAssertDecl>(D) &&
         !isa<FieldDecl, ParmVarDecl>(D);
}

// ---------------------------------------------------------------------------------------------
// The walk of what the roots reach.

class Footprint;
// The `__plain_tN` aliases a printed definition may use, by the canonical type each names
// (`const` included: `using __plain_t9 = const __plain_t8;` is not `__plain_t8`).
using AliasesByType = llvm::DenseMap<QualType, std::string>;

// The file's aliases a definition sees where it goes (`Footprint::visibleAliases`): by type; the
// namespaces each stands in; and those it sees only once moved to file scope (`Moving`: the
// aliases of a plain kernel's printed block, before which its callees go).
struct SeenAliases {
  AliasesByType ByType;
  std::map<std::string, std::vector<std::string>> Within;
  std::set<std::string> Moving;
};

// Where a printed definition goes: at offset `At`, inside `Namespaces`, the first `Open` of
// which are open there (the others it reopens).
struct Place {
  unsigned At;
  std::vector<std::string> Namespaces;
  unsigned Open;
};

// The aliases the definitions of one footprint declare, each declared once for all of them
// (`"aliases"` in the JSON): where its first definition goes, in the namespaces open there (the
// outermost it can stand in, so that whatever is printed later in an enclosing namespace, a
// plain kernel's callees, sees it), deeper only when an alias it names is. Every item using one
// carries the same edit, which edits.apply keeps once: the siblings of a level share it.
struct LevelAlias {
  QualType Type;  // canonical
  std::string Name, Text;
  Place Where;  // `Where.Namespaces`: the ones it is declared in
  std::set<std::string> Moves;  // the file's aliases it names that must move to be seen (`SeenAliases`)
};
struct LevelAliases {
  std::vector<LevelAlias> All;  // in the order declared: an alias after those it names
  std::map<std::string, unsigned> ByName;
  llvm::DenseMap<QualType, std::vector<unsigned>> ByType;
  // the one of `T` a definition going at `Here` sees: declared at or before its offset (at the
  // same offset, its edit comes first in every item that uses both), in its namespaces or
  // enclosing ones
  std::optional<unsigned> visible(QualType T, const Place &Here) const {
    auto It = ByType.find(T);
    if (It != ByType.end())
      for (unsigned I : It->second) {
        const Place &W = All[I].Where;
        if (W.At <= Here.At && W.Namespaces.size() <= Here.Namespaces.size() &&
            std::equal(W.Namespaces.begin(), W.Namespaces.end(), Here.Namespaces.begin()))
          return I;
      }
    return std::nullopt;
  }
  void add(LevelAlias A) {
    ByName[A.Name] = All.size();
    ByType[A.Type].push_back(All.size());
    All.push_back(std::move(A));
  }
};

// A printed definition: its text, and the level's aliases it names (`LevelAliases`).
struct Definition {
  std::string Text;
  std::vector<unsigned> Aliases;
  std::set<std::string> Moves;  // the file's aliases it names that must move to be seen
};

// The `__plain_tN` names in `Text`.
static std::vector<std::string> aliasNames(StringRef Text) {
  std::vector<std::string> Out;
  for (size_t At = Text.find("__plain_t"); At != StringRef::npos; At = Text.find("__plain_t", At + 1)) {
    size_t End = At + 9;
    while (End < Text.size() && isDigit(Text[End]))
      ++End;
    if (End > At + 9 && (End == Text.size() || !(isAlphanumeric(Text[End]) || Text[End] == '_')))
      Out.push_back(Text.substr(At, End - At).str());
  }
  return Out;
}

// Collects the declarations a piece of code names. It walks one declaration (`Top`) and stops
// at the declarations nested in it that are walked on their own (classes, templates), which it
// only hands over; a lambda's class belongs to the code around it and is walked in place.
class References : public RecursiveASTVisitor<References> {
public:
  References(Footprint &F) : F(F) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  void walk(Decl *D, bool Pattern);
  void walkStmt(Stmt *S) { TraverseStmt(S); }
  void walkTypeLoc(TypeLoc TL) { TraverseTypeLoc(TL); }
  void walkTemplateArgumentLoc(const TemplateArgumentLoc &A) { TraverseTemplateArgumentLoc(A); }
  // A template's parameters (their defaults, constraints) and its partial specializations'
  // arguments are checked when it is used: constraint contexts.
  void walkParameters(TemplateParameterList *L) {
    if (!L)
      return;
    ++InConstraint;
    for (NamedDecl *P : *L)
      RecursiveASTVisitor::TraverseDecl(P);
    TraverseStmt(L->getRequiresClause());
    --InConstraint;
  }
  void walkConstraintArgument(const TemplateArgumentLoc &A) {
    ++InConstraint;
    TraverseTemplateArgumentLoc(A);
    --InConstraint;
  }
  void walkConstraintType(TypeLoc TL) {
    ++InConstraint;
    TraverseTypeLoc(TL);
    --InConstraint;
  }

  bool TraverseDecl(Decl *D);
  bool TraverseIfStmt(IfStmt *S);
  bool TraverseTemplateName(TemplateName N);
  bool VisitDeclRefExpr(DeclRefExpr *E);
  bool VisitMemberExpr(MemberExpr *E);
  bool VisitCallExpr(CallExpr *E);
  bool VisitCXXConstructExpr(CXXConstructExpr *E);
  bool VisitCXXNewExpr(CXXNewExpr *E);
  bool VisitCXXDeleteExpr(CXXDeleteExpr *E);
  bool VisitCastExpr(CastExpr *E);
  bool VisitConceptSpecializationExpr(ConceptSpecializationExpr *E);
  bool VisitExpr(Expr *E);
  bool VisitTypeLoc(TypeLoc TL);
  bool VisitDecl(Decl *D);
  bool TraverseRequiresExpr(RequiresExpr *E);
  bool VisitDependentScopeDeclRefExpr(DependentScopeDeclRefExpr *E);
  bool VisitCXXDependentScopeMemberExpr(CXXDependentScopeMemberExpr *E);
  bool VisitOverloadExpr(OverloadExpr *E);
  bool VisitDecompositionDecl(DecompositionDecl *D);
  bool VisitDependentNameTypeLoc(DependentNameTypeLoc TL);
  void walkConstraint(Expr *E) {
    ++InConstraint;
    TraverseStmt(E);
    --InConstraint;
  }

private:
  void constraintName(DeclarationName N);
  int InConstraint = 0;  // inside a concept, a requires-clause or a requires-expression
  Footprint &F;
  Decl *Top = nullptr;
  bool Pattern = false;  // walking a template as written: skip the branches no instantiation takes
};

class Footprint {
public:
  Footprint(ASTContext &Ctx, std::vector<std::string> Kernels)
      : Ctx(Ctx), Main(Ctx), Wanted(std::move(Kernels)), Refs(*this) {}

  void run(llvm::raw_ostream &OS);

  // A declaration the walk reached: its text is kept, and its code walked once.
  void reach(const Decl *D);
  void reachType(QualType T);
  void reachTemplateName(TemplateName N);
  void reachArgument(const TemplateArgument &A);
  void reachSpecializations(const Decl *D);
  void reachStdSpecialization(StringRef Name, QualType Argument);

  // Where a pattern's `if constexpr` takes the same branch in every instantiation: the branch
  // that is never taken, keyed by the `if`'s offset (References skips it in patterns).
  std::map<unsigned, bool> DiscardedElse;  // offset -> true: the else is never taken; false: the then
  MainFile &file() { return Main; }

  // Names a constraint checks on its arguments (`D::rank`, `d.size()`, `swap(a, b)`): the check
  // is made when a template is used, and its substituted form is not kept in the AST; members
  // and functions of these names stay where the classes around them do.
  std::set<std::string> ConstraintNames;

private:
  void collect(const DeclContext *DC, int Parent);
  void add(const Decl *D, int Parent);
  void findKernels();
  void conditions();
  void walk(const Decl *D);
  void drain();
  bool reachNamed(const std::set<std::string> &Names, bool AnyKind);
  void reachSpelled(const Decl *Instantiation);
  void walkRecord(const CXXRecordDecl *RD);
  void markText(const Decl *D);
  void markOffset(unsigned Offset);
  void patterns(const Decl *D, llvm::SmallVectorImpl<const Decl *> &Out);
  bool named(const FunctionDecl *FD, const std::string &W);
  bool wanted(const FunctionDecl *FD);
  bool launches(const Decl *D);
  std::optional<Span> statementOf(const Decl *D);
  static std::string baseName(StringRef Name);
  llvm::json::Array plainKernels();
  llvm::json::Array plainCallees();
  llvm::json::Array Kept;  // the templates plain code calls that plainCallees leaves, each with why
  std::optional<std::string> objectCall(const MemberExpr *ME, const CallExpr *Call, bool Const, Span &Ref);
  std::optional<std::string> operatorCall(const CXXOperatorCallExpr *Call, bool Const, Span &Ref);
  std::optional<std::string> operands(const CXXOperatorCallExpr *Call, bool Const);
  std::optional<std::string> openCall(const std::string &Object, CallExpr::const_arg_iterator Begin,
                                      CallExpr::const_arg_iterator End, Span &Ref);
  std::optional<std::vector<std::tuple<unsigned, unsigned, std::string>>> opening(const CXXRecordDecl *RD,
                                                                                   std::string &Why);
  unsigned NextAlias = 0;  // the number of the next `__plain_tN`
  unsigned NextClosure = 0;  // the number of the next `__plain_closure_N`
  struct FileAlias {
    QualType Type;  // canonical
    std::string Name;
    unsigned Begin, End;
    std::vector<std::string> Namespaces;
    std::optional<unsigned> Hoist;  // where it may move to, at file scope (`hoist`)
  };
  std::vector<FileAlias> Aliases;  // the file's `__plain_tN` at namespace scope, in its order
  void fileAliases();
  std::optional<unsigned> hoist(const TypedefNameDecl *TD, const std::set<const Decl *> &Hoistable) const;
  SeenAliases visibleAliases(unsigned At, const std::vector<std::string> &Namespaces) const;
  LevelAliases Level;  // the aliases this footprint's definitions declare
  std::set<std::string> MovedAliases;  // the file's aliases some definition moves
  llvm::json::Array definitionAliases(const Definition &D);

  ASTContext &Ctx;
  MainFile Main;
  std::vector<std::string> Wanted;
  References Refs;
  std::vector<Entry> Entries;
  std::vector<const Decl *> Roots;
  std::vector<std::string> KernelNames;
  std::vector<const FunctionDecl *> Targets;
  std::set<std::string> Unmatched;  // names asked for that no kernel has exactly
  llvm::DenseSet<const FunctionDecl *> Launching;  // the kept kernels and what names them, canonical
  std::set<std::pair<unsigned, unsigned>> IdleSpans;  // explicit instantiations that make no kept kernel exist
  llvm::DenseSet<const Decl *> Reached;
  llvm::DenseSet<const Type *> TypesSeen;
  llvm::DenseSet<const Decl *> SpecializationsReached;
  std::deque<const Decl *> Work;
  llvm::json::Array Conditions;
};

// ----- entries -----

void Footprint::collect(const DeclContext *DC, int Parent) {
  for (const Decl *D : DC->decls()) {
    if (isa<NamespaceDecl, LinkageSpecDecl, ExportDecl>(D)) {
      collect(cast<DeclContext>(D), Parent);
      continue;
    }
    if (!Main.offset(D->getLocation()) && !Main.offset(D->getBeginLoc()))
      continue;
    if (deletable(D))
      add(D, Parent);
    else if (explicitInstantiation(D))
      continue;  // a root when it makes a kept kernel exist (run)
    else if (!D->isImplicit() && !isa<FieldDecl, AccessSpecDecl, IndirectFieldDecl>(D))
      Roots.push_back(D);  // spelled here and kept: what it names must stay
  }
}

// The range of a declaration's text: from its template header or first attribute to its end and
// trailing `;`.
static std::optional<Span> textOf(MainFile &Main, const Decl *D) {
  auto S = Main.span(D->getSourceRange(), true);
  if (!S)
    return std::nullopt;
  // a declaration a macro made ends where the invocation ends (`CK_DECLARE_ENV_VAR_BOOL(X)` has no
  // `;`): looking on for one would take in every declaration up to the next `;`
  if (D->getEndLoc().isFileID())
    S->End = Main.declarationEnd(S->End);
  // `extern "C" int f();` without braces: the linkage goes with the declaration
  if (auto *L = dyn_cast<LinkageSpecDecl>(D->getDeclContext()); L && !L->hasBraces())
    if (auto B = Main.offset(L->getBeginLoc()); B && *B < S->Begin)
      S->Begin = *B;
  const Decl *Inner = D;
  if (auto *T = dyn_cast<TemplateDecl>(D))
    Inner = T->getTemplatedDecl() ? T->getTemplatedDecl() : D;
  for (const Attr *A : Inner->attrs()) {
    if (A->isImplicit() || A->isInherited())
      continue;
    if (auto B = Main.offset(A->getRange().getBegin()); B && *B < S->Begin && S->Begin - *B < 512)
      S->Begin = *B;
  }
  return S;
}

void Footprint::add(const Decl *D, int Parent) {
  auto S = textOf(Main, D);
  if (!S)
    return;
  // Declarations sharing text with the previous sibling (`struct S {} s;`, `int a, b;`, several
  // made by one macro) are one entry: they can only go together.
  if (!Entries.empty()) {
    int Last = Entries.size() - 1;
    while (Last >= 0 && Entries[Last].Parent != Parent)
      Last = Entries[Last].Parent;  // up from the previous sibling's last descendant
    if (Last >= 0 && Entries[Last].Parent == Parent && S->Begin < Entries[Last].Range.End) {
      Entry &E = Entries[Last];
      E.Range.End = std::max(E.Range.End, S->End);
      E.Decls.push_back(D);
      return;
    }
  }
  Entries.push_back(Entry{*S, Parent, {D}, false});
  int Self = Entries.size() - 1;
  // Members are entries of their own: a class may keep some and lose others.
  const DeclContext *Members = nullptr;
  if (auto *T = dyn_cast<ClassTemplateDecl>(D))
    Members = T->getTemplatedDecl();
  else if (auto *R = dyn_cast<CXXRecordDecl>(D); R && R->isThisDeclarationADefinition())
    Members = R;
  if (!Members)
    return;
  for (const Decl *M : Members->decls()) {
    if (deletable(M))  // the injected class name is implicit: not one
      add(M, Self);
  }
}

// The innermost entry at an offset, and every entry around it; those newly reached have their
// written code walked (a template's non-dependent names are bound where it is written, and
// must stay declared).
void Footprint::markOffset(unsigned Offset) {
  auto It = std::upper_bound(Entries.begin(), Entries.end(), Offset,
                             [](unsigned O, const Entry &E) { return O < E.Range.Begin; });
  if (It == Entries.begin())
    return;
  int I = (It - Entries.begin()) - 1;
  while (I >= 0 && Entries[I].Range.End <= Offset)
    I = Entries[I].Parent;
  for (; I >= 0 && !Entries[I].Reached; I = Entries[I].Parent) {
    Entries[I].Reached = true;
    for (const Decl *W : Entries[I].Decls)
      reach(W);
  }
}

// The declarations whose text produced `D`: the templates and members it was instantiated from,
// the primary template of a specialization.
void Footprint::patterns(const Decl *D, llvm::SmallVectorImpl<const Decl *> &Out) {
  Out.push_back(D);
  if (auto *FD = dyn_cast<FunctionDecl>(D)) {
    if (auto *P = FD->getTemplateInstantiationPattern())
      Out.push_back(P);
    if (auto *T = FD->getPrimaryTemplate()) {
      for (auto *P = T; P; P = P->getInstantiatedFromMemberTemplate())
        Out.push_back(P);
    }
    if (auto *M = FD->getInstantiatedFromMemberFunction())
      Out.push_back(M);
    if (auto *T = FD->getDescribedFunctionTemplate())
      Out.push_back(T);
  } else if (auto *RD = dyn_cast<CXXRecordDecl>(D)) {
    if (auto *S = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
      auto From = S->getSpecializedTemplateOrPartial();
      if (auto *T = From.dyn_cast<ClassTemplateDecl *>())
        Out.push_back(T);
      else if (auto *P = From.dyn_cast<ClassTemplatePartialSpecializationDecl *>()) {
        Out.push_back(P);
        Out.push_back(P->getSpecializedTemplate());
      }
      Out.push_back(S->getSpecializedTemplate());
    }
    if (auto *P = RD->getTemplateInstantiationPattern())
      Out.push_back(P);
    if (auto *M = RD->getInstantiatedFromMemberClass())
      Out.push_back(M);
    if (auto *T = RD->getDescribedClassTemplate())
      Out.push_back(T);
  } else if (auto *VD = dyn_cast<VarDecl>(D)) {
    if (auto *S = dyn_cast<VarTemplateSpecializationDecl>(VD)) {
      auto From = S->getSpecializedTemplateOrPartial();
      if (auto *T = From.dyn_cast<VarTemplateDecl *>())
        Out.push_back(T);
      else if (auto *P = From.dyn_cast<VarTemplatePartialSpecializationDecl *>())
        Out.push_back(P);
      Out.push_back(S->getSpecializedTemplate());
    }
    if (auto *P = VD->getTemplateInstantiationPattern())
      Out.push_back(P);
    if (auto *M = VD->getInstantiatedFromStaticDataMember())
      Out.push_back(M);
    if (auto *T = VD->getDescribedVarTemplate())
      Out.push_back(T);
  } else if (auto *ED = dyn_cast<EnumDecl>(D)) {
    if (auto *M = ED->getInstantiatedFromMemberEnum())
      Out.push_back(M);
  } else if (auto *T = dyn_cast<TemplateDecl>(D)) {
    if (auto *In = T->getTemplatedDecl())
      Out.push_back(In);
  }
}

// Mark the text of `D` and of everything it was made from, over all their redeclarations.
void Footprint::markText(const Decl *D) {
  llvm::SmallVector<const Decl *, 8> From;
  patterns(D, From);
  for (const Decl *P : From) {
    for (const Decl *R : P->redecls()) {
      // the name's location if the file has it, else the beginning (an instantiation keeps
      // its pattern's locations)
      if (auto O = Main.offset(R->getLocation()))
        markOffset(*O);
      else if (auto B = Main.offset(R->getBeginLoc()))
        markOffset(*B);
    }
    if (P != D)
      reach(P);
  }
}

void Footprint::reach(const Decl *D) {
  if (!D)
    return;
  if (Reached.insert(D).second)
    Work.push_back(D);
}

// Every instantiation of a template used where the AST keeps no trace of which (a constraint).
void Footprint::reachSpecializations(const Decl *D) {
  if (!D || !SpecializationsReached.insert(D).second)
    return;
  if (auto *T = dyn_cast<FunctionTemplateDecl>(D))
    for (auto *S : T->specializations())
      reach(S);
  else if (auto *T = dyn_cast<ClassTemplateDecl>(D))
    for (auto *S : T->specializations())
      reach(S);
  else if (auto *T = dyn_cast<VarTemplateDecl>(D))
    for (auto *S : T->specializations())
      reach(S);
}

// `std::Name<Argument>`, the specialization Sema made for a check the AST keeps no trace of.
void Footprint::reachStdSpecialization(StringRef Name, QualType Argument) {
  TemplateArgument A(Ctx.getCanonicalType(Argument));
  for (auto *NS : Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get("std")))
    if (auto *Std = dyn_cast<NamespaceDecl>(NS))
      for (auto *T : Std->lookup(&Ctx.Idents.get(Name)))
        if (auto *CT = dyn_cast<ClassTemplateDecl>(T)) {
          void *Pos = nullptr;
          reach(CT->findSpecialization(A, Pos));
        }
}

void Footprint::reachTemplateName(TemplateName N) {
  if (auto *U = N.getAsUsingShadowDecl())
    reach(U);
  if (auto *T = N.getAsTemplateDecl())
    reach(T);
}

void Footprint::reachArgument(const TemplateArgument &A) {
  switch (A.getKind()) {
  case TemplateArgument::Type:
    reachType(A.getAsType());
    break;
  case TemplateArgument::Declaration:
    reach(A.getAsDecl());
    reachType(A.getParamTypeForDecl());
    break;
  case TemplateArgument::Template:
  case TemplateArgument::TemplateExpansion:
    reachTemplateName(A.getAsTemplateOrTemplatePattern());
    break;
  case TemplateArgument::Expression:
    Refs.walkStmt(A.getAsExpr());
    break;
  case TemplateArgument::StructuralValue:
    reachType(A.getStructuralValueType());
    if (A.getAsStructuralValue().isLValue())
      if (auto *VD = A.getAsStructuralValue().getLValueBase().dyn_cast<const ValueDecl *>())
        reach(VD);
    break;
  case TemplateArgument::Integral:
    reachType(A.getIntegralType());
    break;
  case TemplateArgument::Pack:
    for (const auto &P : A.pack_elements())
      reachArgument(P);
    break;
  default:
    break;
  }
}

// The declarations a type names: its typedefs and aliases (sugar), classes, enums, templates
// and their arguments, through pointers, arrays and function types.
void Footprint::reachType(QualType T) {
  while (!T.isNull()) {
    const Type *Ty = T.getTypePtr();
    if (!TypesSeen.insert(Ty).second)
      return;
    if (auto *X = dyn_cast<TypedefType>(Ty))
      reach(X->getDecl());
    else if (auto *X = dyn_cast<UsingType>(Ty))
      reach(X->getDecl());
    else if (auto *X = dyn_cast<TagType>(Ty))
      reach(X->getDecl());
    else if (auto *X = dyn_cast<TemplateSpecializationType>(Ty)) {
      reachTemplateName(X->getTemplateName());
      for (const auto &A : X->template_arguments())
        reachArgument(A);
    } else if (auto *X = dyn_cast<DeducedTemplateSpecializationType>(Ty))
      reachTemplateName(X->getTemplateName());
    else if (auto *X = dyn_cast<SubstTemplateTypeParmType>(Ty))
      reachType(X->getReplacementType());
    else if (auto *X = dyn_cast<AutoType>(Ty); X && X->isConstrained())
      reach(X->getTypeConstraintConcept());
    if (auto *X = dyn_cast<PointerType>(Ty))
      reachType(X->getPointeeType());
    else if (auto *X = dyn_cast<ReferenceType>(Ty))
      reachType(X->getPointeeType());
    else if (auto *X = dyn_cast<MemberPointerType>(Ty)) {
      reachType(X->getPointeeType());
      if (auto *C = X->getMostRecentCXXRecordDecl())
        reach(C);
    } else if (auto *X = dyn_cast<ArrayType>(Ty))
      reachType(X->getElementType());
    else if (auto *X = dyn_cast<VectorType>(Ty))
      reachType(X->getElementType());
    else if (auto *X = dyn_cast<FunctionProtoType>(Ty)) {
      reachType(X->getReturnType());
      for (QualType P : X->param_types())
        reachType(P);
    }
    QualType Next = Ty->getLocallyUnqualifiedSingleStepDesugaredType();
    if (Next.getTypePtr() == Ty)
      return;
    T = Next;
  }
}

// ----- roots -----

bool Footprint::named(const FunctionDecl *FD, const std::string &W) {
  return W == ASTNameGenerator(Ctx).getName(FD) || W == FD->getQualifiedNameAsString() || W == FD->getNameAsString();
}

bool Footprint::wanted(const FunctionDecl *FD) {
  if (Wanted.empty())
    return true;
  for (const auto &W : Wanted)
    if (named(FD, W) || (Unmatched.count(W) && baseName(W) == FD->getNameAsString()))
      return true;
  return false;
}

// A mangled name's own identifier (`_ZN3lib4kernILi2EEEvPi` -> `kern`), as the oracle reads it:
// a reduction renames a kernel (a template made plain, a parameter deleted) and the oracle
// then follows its target by this name, so the footprint does too.
std::string Footprint::baseName(StringRef Name) {
  if (!Name.starts_with("_Z"))
    return Name.str();
  std::string Mangled = Name.str();  // the demangler reads it until it is done
  llvm::ItaniumPartialDemangler D;
  if (D.partialDemangle(Mangled.c_str()))
    return Mangled;
  size_t N = 0;
  char *Base = D.getFunctionBaseName(nullptr, &N);
  std::string Out = Base ? std::string(Base) : Name.str();
  std::free(Base);
  if (auto Angle = Out.find('<'); Angle != std::string::npos)
    Out.resize(Angle);
  return Out;
}

// The kernels kept, and what makes them exist: every function whose code names one of them, or
// names a function that does (a launcher, the host code calling it). In a device-only run the
// host side is parsed and instantiated, only not compiled, so its references are all here.
class Callers : public RecursiveASTVisitor<Callers> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }
  bool TraverseDecl(Decl *D) {
    auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    if (FD)
      Stack.push_back(FD);
    bool Ok = RecursiveASTVisitor::TraverseDecl(D);
    if (FD)
      Stack.pop_back();
    return Ok;
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    // a kernel compiled: a plain one or an instantiation, not a template's pattern
    if (FD->hasAttr<CUDAGlobalAttr>() && FD->doesThisDeclarationHaveABody() && !FD->isDependentContext())
      Kernels.push_back(FD);
    return true;
  }
  // a function is named by a reference, a member access (`RunGemm(arg)` in a member is
  // `this->RunGemm`) or a construction
  bool VisitDeclRefExpr(DeclRefExpr *E) { return names(E->getDecl()); }
  bool VisitMemberExpr(MemberExpr *E) { return names(E->getMemberDecl()); }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) { return names(E->getConstructor()); }
  bool names(Decl *D) {
    if (auto *FD = dyn_cast_or_null<FunctionDecl>(D); FD && !Stack.empty())
      By[FD->getCanonicalDecl()].push_back(Stack.back());
    return true;
  }
  std::vector<FunctionDecl *> Stack, Kernels;
  llvm::DenseMap<const FunctionDecl *, std::vector<FunctionDecl *>> By;  // callee -> the functions naming it
};

void Footprint::findKernels() {
  Callers C;
  C.TraverseDecl(Ctx.getTranslationUnitDecl());
  std::deque<const FunctionDecl *> Up;
  llvm::DenseSet<const FunctionDecl *> Seen;
  // a name no kernel has exactly selects the kernels of its base name (the oracle's rule)
  for (const auto &W : Wanted)
    if (std::none_of(C.Kernels.begin(), C.Kernels.end(), [&](FunctionDecl *K) { return named(K, W); }))
      Unmatched.insert(W);
  for (FunctionDecl *K : C.Kernels) {
    if (!wanted(K))
      continue;
    KernelNames.push_back(ASTNameGenerator(Ctx).getName(K));
    Targets.push_back(K);
    if (Seen.insert(K->getCanonicalDecl()).second)
      Up.push_back(K);
  }
  while (!Up.empty()) {
    const FunctionDecl *F = Up.front();
    Up.pop_front();
    Roots.push_back(F);
    auto It = C.By.find(F->getCanonicalDecl());
    if (It == C.By.end())
      continue;
    for (FunctionDecl *Caller : It->second) {
      // a lambda's operator is walked with the function around it; reach the latter
      const FunctionDecl *Outer = Caller;
      while (auto *M = dyn_cast<CXXMethodDecl>(Outer)) {
        if (!M->getParent()->isLambda())
          break;
        auto *Around = dyn_cast_or_null<FunctionDecl>(M->getParent()->getDeclContext());
        if (!Around)
          break;
        Outer = Around;
      }
      for (const FunctionDecl *G : {static_cast<const FunctionDecl *>(Caller), Outer})
        if (Seen.insert(G->getCanonicalDecl()).second)
          Up.push_back(G);
    }
  }
  Launching = std::move(Seen);
}

// Whether an explicit instantiation makes a kept kernel exist: it is, or its class has, a
// function naming one.
bool Footprint::launches(const Decl *D) {
  if (auto *FD = dyn_cast<FunctionDecl>(D))
    return Launching.contains(FD->getCanonicalDecl());
  if (auto *RD = dyn_cast<CXXRecordDecl>(D)) {
    for (const Decl *M : RD->decls())
      if (isa<FunctionDecl, CXXRecordDecl>(M) && launches(M))
        return true;
    return false;
  }
  return true;  // a variable template's: kept
}

// The text of an explicit instantiation, `template` (or `extern template`) to its `;`.
std::optional<Span> Footprint::statementOf(const Decl *D) {
  SourceLocation Where;
  if (auto *FD = dyn_cast<FunctionDecl>(D))
    Where = FD->getPointOfInstantiation();
  else if (auto *S = dyn_cast<ClassTemplateSpecializationDecl>(D))
    Where = S->getPointOfInstantiation();
  auto O = Main.offset(Where);
  if (!O || !Where.isFileID())
    return std::nullopt;
  StringRef Text = Main.Text;
  size_t Begin = Text.substr(0, *O).rfind("template");
  size_t End = Text.find(';', *O);
  if (Begin == StringRef::npos || End == StringRef::npos || Text.substr(Begin, *O - Begin).contains(';'))
    return std::nullopt;
  StringRef Before = Text.substr(0, Begin).rtrim();
  if (Before.ends_with("extern"))
    Begin = Before.size() - 6;
  return Span{unsigned(Begin), unsigned(End + 1)};
}

// Explicit instantiations written in the file are kept (they are not entries): their
// specializations and the arguments they spell are roots.
class Instantiations : public RecursiveASTVisitor<Instantiations> {
public:
  Instantiations(MainFile &M) : M(M) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    check(FD, FD->getTemplateSpecializationKind(), FD->getPointOfInstantiation());
    return true;
  }
  bool VisitClassTemplateSpecializationDecl(ClassTemplateSpecializationDecl *D) {
    check(D, D->getSpecializationKind(), D->getPointOfInstantiation());
    return true;
  }
  bool VisitVarTemplateSpecializationDecl(VarTemplateSpecializationDecl *D) {
    check(D, D->getSpecializationKind(), D->getPointOfInstantiation());
    return true;
  }
  void check(Decl *D, TemplateSpecializationKind K, SourceLocation Where) {
    if ((K == TSK_ExplicitInstantiationDefinition || K == TSK_ExplicitInstantiationDeclaration) && M.offset(Where))
      Found.push_back(D);
  }
  MainFile &M;
  std::vector<Decl *> Found;
};

// ----- the walk -----

void Footprint::walk(const Decl *D) {
  markText(D);
  Decl *M = const_cast<Decl *>(D);
  if (auto *U = dyn_cast<UsingShadowDecl>(D)) {
    reach(U->getIntroducer());
    reach(U->getTargetDecl());
    return;
  }
  if (auto *U = dyn_cast<BaseUsingDecl>(D)) {
    for (auto *S : U->shadows())
      reach(S->getTargetDecl());
    Refs.walk(M, false);
    return;
  }
  if (auto *E = dyn_cast<EnumConstantDecl>(D)) {
    reach(cast<Decl>(E->getDeclContext()));
    return;
  }
  if (auto *FD = dyn_cast<FieldDecl>(D)) {
    reach(FD->getParent());
    return;
  }
  if (auto *RD = dyn_cast<CXXRecordDecl>(D)) {
    walkRecord(RD);
    return;
  }
  if (auto *T = dyn_cast<TemplateDecl>(D)) {
    Refs.walkParameters(T->getTemplateParameters());
    if (auto *C = dyn_cast<ConceptDecl>(T))
      Refs.walkConstraint(C->getConstraintExpr());
    if (auto *A = dyn_cast<TypeAliasTemplateDecl>(T))
      Refs.walk(A->getTemplatedDecl(), true);
    reach(T->getTemplatedDecl());
    return;
  }
  if (auto *FD = dyn_cast<FunctionDecl>(D)) {
    bool Pattern = FD->isDependentContext();
    for (const FunctionDecl *R : FD->redecls()) {  // every declaration spelled stays: its signature too
      Refs.walk(const_cast<FunctionDecl *>(R), Pattern);
      if (Pattern && R->getTypeSourceInfo())  // a template's signature decides overloads (SFINAE)
        Refs.walkConstraintType(R->getTypeSourceInfo()->getTypeLoc());
    }
    if (auto *Args = FD->getTemplateSpecializationArgs())
      for (const auto &A : Args->asArray())
        reachArgument(A);
    if (auto *Written = FD->getTemplateSpecializationArgsAsWritten())
      for (const auto &A : Written->arguments())
        Refs.walkTemplateArgumentLoc(A);
    for (const FunctionDecl *R : FD->redecls())
      if (const Expr *C = R->getTrailingRequiresClause().ConstraintExpr)
        Refs.walkConstraint(const_cast<Expr *>(C));
    // `using Base::Base;`: the constructor called is the base's, through an implicit one
    if (auto *C = dyn_cast<CXXConstructorDecl>(FD))
      if (auto Inherited = C->getInheritedConstructor())
        reach(Inherited.getConstructor());
    if (auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
      reach(MD->getParent());
      for (const CXXMethodDecl *O : MD->overridden_methods())
        reach(O);
    }
    return;
  }
  if (auto *VD = dyn_cast<VarDecl>(D)) {
    for (const VarDecl *R : VD->redecls())
      Refs.walk(const_cast<VarDecl *>(R), VD->isTemplated());
    if (auto *S = dyn_cast<VarTemplateSpecializationDecl>(VD)) {
      for (const auto &A : S->getTemplateArgs().asArray())
        reachArgument(A);
      if (auto *W = S->getTemplateArgsAsWritten())
        for (const auto &A : W->arguments())
          Refs.walkTemplateArgumentLoc(A);
    }
    if (auto *R = dyn_cast<CXXRecordDecl>(VD->getDeclContext()))
      reach(R);
    return;
  }
  if (isa<NamespaceDecl, TranslationUnitDecl, LinkageSpecDecl>(D))
    return;
  Refs.walk(M, D->isTemplated());
  if (auto *R = dyn_cast<CXXRecordDecl>(D->getDeclContext()))
    reach(R);
}

// A virtual function called without being named, through the vtable. Not a pure one: deleting
// it makes no class abstract (an override kept reaches it). Not a class template's member that
// its instantiation left without a body: using the vtable instantiates every virtual member, so
// this class is never made and the function never called (composable_kernel's device ops: only
// `Invoker::Run` is instantiated, and their host-only `IsSupportedArgument` overrides went with it).
// Nor the template's own text: its instantiations answer for it.
static bool dispatched(const CXXMethodDecl *MD) {
  if (!MD->isVirtual() || MD->isPureVirtual() || MD->getParent()->isDependentContext())
    return false;
  const FunctionDecl *Pattern = MD->getTemplateInstantiationPattern();
  return !(Pattern && Pattern->isDefined() && !MD->isDefined());
}

// A class kept: what its layout and its implicit members need (bases, fields), the members
// called without being named (destructor, virtual functions), and the special members whose
// declaration decides which implicit ones exist. Other members are reached only when named.
void Footprint::walkRecord(const CXXRecordDecl *RD) {
  if (auto *S = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
    for (const auto &A : S->getTemplateArgs().asArray())
      reachArgument(A);
    if (auto *W = S->getTemplateArgsAsWritten())
      for (const auto &A : W->arguments())
        Refs.walkTemplateArgumentLoc(A);
    if (auto *P = dyn_cast<ClassTemplatePartialSpecializationDecl>(S)) {
      Refs.walkParameters(P->getTemplateParameters());
      if (auto *W = P->getTemplateArgsAsWritten())
        for (const auto &A : W->arguments())
          Refs.walkConstraintArgument(A);
    }
  }
  if (auto *Outer = dyn_cast<CXXRecordDecl>(RD->getDeclContext()))
    reach(Outer);
  const CXXRecordDecl *Def = RD->getDefinition();
  if (!Def || Def->isLambda())
    return;
  if (Def != RD)
    reach(Def);
  for (const CXXBaseSpecifier &B : Def->bases()) {
    if (auto *TSI = B.getTypeSourceInfo())
      Refs.walkTypeLoc(TSI->getTypeLoc());
    reachType(B.getType());
  }
  for (const Decl *M : Def->decls()) {
    Decl *Mut = const_cast<Decl *>(M);
    if (isa<FieldDecl, IndirectFieldDecl>(M) || (isa<UsingDecl, UsingEnumDecl>(M)))
      Refs.walk(Mut, Def->isDependentContext());
    else if (auto *F = dyn_cast<FriendDecl>(M); F && !isFriendDefinition(F))
      Refs.walk(Mut, Def->isDependentContext());
    else if (auto *MD = dyn_cast<CXXMethodDecl>(M)) {
      bool Special = isa<CXXDestructorDecl>(MD) || dispatched(MD) || MD->isDeleted() ||
                     MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator();
      if (auto *C = dyn_cast<CXXConstructorDecl>(MD))
        Special |= C->isDefaultConstructor() || C->isCopyOrMoveConstructor();
      if (Special)
        reach(MD);
    } else if (auto *T = dyn_cast<FunctionTemplateDecl>(M)) {
      if (auto *C = dyn_cast<CXXConstructorDecl>(T->getTemplatedDecl()); C && C->isDefaultConstructor())
        reach(T);
    }
  }
}

// ----- References -----

void References::walk(Decl *D, bool InPattern) {
  Decl *OldTop = Top;
  bool OldPattern = Pattern;
  Top = D;
  Pattern = InPattern;
  TraverseDecl(D);
  Top = OldTop;
  Pattern = OldPattern;
}

bool References::TraverseDecl(Decl *D) {
  if (!D || D == Top)
    return RecursiveASTVisitor::TraverseDecl(D);
  if (auto *R = dyn_cast<CXXRecordDecl>(D); R && R->isLambda())
    return RecursiveASTVisitor::TraverseDecl(D);
  if (isa<TagDecl, TemplateDecl, FunctionDecl>(D) && !isa<ParmVarDecl>(D)) {
    F.reach(D);  // walked on its own
    return true;
  }
  return RecursiveASTVisitor::TraverseDecl(D);
}

bool References::TraverseIfStmt(IfStmt *S) {
  if (Pattern && S->isConstexpr()) {
    if (auto O = F.file().offset(S->getIfLoc())) {
      auto It = F.DiscardedElse.find(*O);
      if (It != F.DiscardedElse.end()) {
        TraverseStmt(S->getInit());
        TraverseStmt(S->getCond());
        TraverseStmt(It->second ? S->getThen() : S->getElse());
        return true;
      }
    }
  }
  return RecursiveASTVisitor::TraverseIfStmt(S);
}

bool References::TraverseTemplateName(TemplateName N) {
  F.reachTemplateName(N);
  if (InConstraint)
    F.reachSpecializations(N.getAsTemplateDecl());
  return RecursiveASTVisitor::TraverseTemplateName(N);
}

bool References::VisitDeclRefExpr(DeclRefExpr *E) {
  F.reach(E->getDecl());
  if (InConstraint)
    F.reachSpecializations(E->getDecl());
  if (E->getFoundDecl() != E->getDecl())
    F.reach(E->getFoundDecl());
  return true;
}

bool References::VisitMemberExpr(MemberExpr *E) {
  F.reach(E->getMemberDecl());
  F.reach(E->getFoundDecl().getDecl());
  return true;
}

bool References::VisitCallExpr(CallExpr *E) {
  F.reach(E->getDirectCallee());
  return true;
}

bool References::VisitCXXConstructExpr(CXXConstructExpr *E) {
  F.reach(E->getConstructor());
  if (auto *R = E->getType()->getAsCXXRecordDecl())
    if (auto *D = R->getDestructor())
      F.reach(D);
  return true;
}

bool References::VisitCXXNewExpr(CXXNewExpr *E) {
  F.reach(E->getOperatorNew());
  F.reach(E->getOperatorDelete());
  return true;
}

bool References::VisitCXXDeleteExpr(CXXDeleteExpr *E) {
  F.reach(E->getOperatorDelete());
  if (auto *R = E->getDestroyedType()->getAsCXXRecordDecl())
    F.reach(R->getDestructor());
  return true;
}

bool References::VisitCastExpr(CastExpr *E) {
  F.reach(E->getConversionFunction());
  return true;
}

bool References::VisitConceptSpecializationExpr(ConceptSpecializationExpr *E) {
  F.reach(E->getNamedConcept());
  return true;
}

bool References::VisitExpr(Expr *E) {
  if (!E->isTypeDependent())
    F.reachType(E->getType());
  return true;
}

bool References::VisitTypeLoc(TypeLoc TL) {
  F.reachType(TL.getType());
  return true;
}

bool References::VisitDecl(Decl *D) {
  if (auto *V = dyn_cast<ValueDecl>(D))
    F.reachType(V->getType());
  if (auto *T = dyn_cast<TypedefNameDecl>(D))
    F.reachType(T->getUnderlyingType());
  return true;
}

bool References::TraverseRequiresExpr(RequiresExpr *E) {
  ++InConstraint;
  bool Ok = RecursiveASTVisitor::TraverseRequiresExpr(E);
  --InConstraint;
  return Ok;
}

void References::constraintName(DeclarationName N) {
  if (InConstraint && N.isIdentifier())
    F.ConstraintNames.insert(N.getAsString());
}

bool References::VisitDependentScopeDeclRefExpr(DependentScopeDeclRefExpr *E) {
  constraintName(E->getDeclName());
  return true;
}

bool References::VisitCXXDependentScopeMemberExpr(CXXDependentScopeMemberExpr *E) {
  constraintName(E->getMember());
  return true;
}

// `typename vector_traits<X>::scalar_type` in a SFINAE signature: the member is looked up in
// each specialization the check makes, and no AST node of the instantiation names it.
bool References::VisitDependentNameTypeLoc(DependentNameTypeLoc TL) {
  constraintName(DeclarationName(TL.getTypePtr()->getIdentifier()));
  return true;
}

// A name in a template that depends on its arguments: ordinary lookup ran where the template is
// written, and what it found must stay declared (`UnpackDataType<T>()` parses as a call of a
// template only while one is declared). Where a constraint or a partial specialization's
// arguments use it, the check ran on instantiations the AST does not keep: all of them stay.
bool References::VisitOverloadExpr(OverloadExpr *E) {
  constraintName(E->getName());
  for (NamedDecl *D : E->decls()) {
    F.reach(D);
    if (InConstraint)
      F.reachSpecializations(D);
  }
  return true;
}

// A structured binding of a tuple-like type asked `std::tuple_size<E>` whether E is one; the AST
// keeps `get` and `tuple_element` (the bindings' types) but nothing of that specialization, and
// without it the binding decomposes E's members instead (ck_tile's `tuple` then does not compile).
bool References::VisitDecompositionDecl(DecompositionDecl *D) {
  if (!D->getType()->isDependentType() &&
      llvm::any_of(D->bindings(), [](const BindingDecl *B) { return B->getHoldingVar() != nullptr; }))
    F.reachStdSpecialization("tuple_size", D->getType().getNonReferenceType());
  return true;
}

// ----- conditions -----

// Every `if` and `?:` of the code, in every instantiation: a condition with the same constant
// value wherever it was instantiated can be folded in the text that was written.
class ConditionValues : public RecursiveASTVisitor<ConditionValues> {
public:
  ConditionValues(MainFile &M) : M(M) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  struct Seen {
    std::string Kind;
    SourceRange Whole, Cond, Then, Else;
    bool Init = false, Unknown = false;
    std::set<bool> Values;
    const Stmt *ThenStmt = nullptr, *ElseStmt = nullptr;
  };
  std::map<unsigned, Seen> ByOffset;

  bool VisitIfStmt(IfStmt *S) {
    if (S->isConsteval())
      return true;
    Seen &E = record(S->getIfLoc(), S->isConstexpr() ? "if constexpr" : "if", S->getSourceRange(),
                     S->getCond(), S->getThen(), S->getElse());
    E.Init |= S->getInit() || S->getConditionVariable();
    note(E, S->getCond());
    return true;
  }
  bool VisitConditionalOperator(ConditionalOperator *C) {
    Seen &E = record(C->getQuestionLoc(), "?:", C->getSourceRange(), C->getCond(), C->getTrueExpr(),
                     C->getFalseExpr());
    note(E, C->getCond());
    return true;
  }

private:
  Seen &record(SourceLocation Key, const char *Kind, SourceRange Whole, Expr *Cond, Stmt *Then, Stmt *Else) {
    auto O = M.offset(Key);
    Seen &E = ByOffset[O && Key.isFileID() ? *O : ~0u];
    if (E.Kind.empty()) {
      E.Kind = Kind;
      E.Whole = Whole;
      E.Cond = Cond ? Cond->getSourceRange() : SourceRange();
      E.Then = Then ? Then->getSourceRange() : SourceRange();
      E.Else = Else ? Else->getSourceRange() : SourceRange();
      E.ThenStmt = Then;
      E.ElseStmt = Else;
    }
    return E;
  }
  // A dependent condition is the pattern's, which says nothing; any other is one instantiation's
  // (or a plain function's) value, or else makes the condition not constant.
  void note(Seen &E, Expr *Cond) {
    if (!Cond || Cond->isValueDependent() || Cond->isTypeDependent())
      return;
    APValue V;
    if (constantEvaluated(Cond) || !Cond->isCXX11ConstantExpr(M.Ctx, &V) || !V.isInt()) {
      E.Unknown = true;
      return;
    }
    E.Values.insert(V.getInt().getBoolValue());
  }
  // `std::is_constant_evaluated()` is true when asked as a constant expression, false at run time.
  static bool constantEvaluated(const Stmt *S) {
    if (!S)
      return false;
    if (auto *C = dyn_cast<CallExpr>(S))
      if (C->getBuiltinCallee() == Builtin::BI__builtin_is_constant_evaluated)
        return true;
    for (const Stmt *Child : S->children())
      if (constantEvaluated(Child))
        return true;
    return false;
  }
  MainFile &M;
};

void Footprint::conditions() {
  ConditionValues C(Main);
  C.TraverseDecl(Ctx.getTranslationUnitDecl());
  for (auto &[Offset, E] : C.ByOffset) {
    if (Offset == ~0u || E.Unknown || E.Values.size() != 1)
      continue;
    if (!Main.plain(E.Whole) || !Main.plain(E.Cond) || !Main.plain(E.Then) ||
        (E.Else.isValid() && !Main.plain(E.Else)))
      continue;
    bool Value = *E.Values.begin();
    bool Statement = E.Kind != "?:";
    auto Branch = [&](SourceRange R, const Stmt *S) -> llvm::json::Value {
      if (R.isInvalid())
        return nullptr;
      auto Sp = Main.span(R, Statement && !isa<CompoundStmt, NullStmt>(S));
      if (!Sp)
        return nullptr;
      return llvm::json::Array{Sp->Begin, Sp->End};
    };
    const Stmt *LastStmt = E.ElseStmt ? E.ElseStmt : E.ThenStmt;
    auto Whole = Main.span(E.Whole, Statement && !isa<CompoundStmt, NullStmt>(LastStmt));
    auto Cond = Main.span(E.Cond, false);
    if (!Whole || !Cond)
      continue;
    if (E.Kind == "if constexpr")
      DiscardedElse[Offset] = Value;
    Conditions.push_back(llvm::json::Object{
        {"kind", E.Kind}, {"value", Value}, {"begin", Whole->Begin}, {"end", Whole->End},
        {"cond", llvm::json::Array{Cond->Begin, Cond->End}}, {"then", Branch(E.Then, E.ThenStmt)},
        {"else", Branch(E.Else, E.ElseStmt)}, {"init", E.Init}});
  }
}

// Entries named in `Names`: members of reached classes, and at namespace scope functions and
// variables, or with `AnyKind` any declaration. Whether any was newly reached.
bool Footprint::reachNamed(const std::set<std::string> &Names, bool AnyKind) {
  bool Any = false;
  for (auto &E : Entries) {
    if (E.Reached || (E.Parent >= 0 && !Entries[E.Parent].Reached))
      continue;
    for (const Decl *D : E.Decls) {
      auto *N = dyn_cast<NamedDecl>(D);
      if (N && N->getDeclName().isIdentifier() && Names.count(N->getName().str()) &&
          (E.Parent >= 0 || AnyKind || isa<FunctionDecl, FunctionTemplateDecl, VarDecl, VarTemplateDecl>(D))) {
        markOffset(E.Range.Begin);
        Any = true;
        break;
      }
    }
  }
  return Any;
}

// What an explicit instantiation spells: its template arguments are not kept in the AST as
// written (`launch<conv::configs[53]>` keeps the value, not `configs`), so the names in its
// text reach the declarations of those names.
void Footprint::reachSpelled(const Decl *D) {
  SourceLocation Where;
  if (auto *FD = dyn_cast<FunctionDecl>(D))
    Where = FD->getPointOfInstantiation();
  else if (auto *S = dyn_cast<ClassTemplateSpecializationDecl>(D))
    Where = S->getPointOfInstantiation();
  else if (auto *V = dyn_cast<VarTemplateSpecializationDecl>(D))
    Where = V->getPointOfInstantiation();
  auto O = Main.offset(Where);
  if (!O)
    return;
  std::set<std::string> Names;
  StringRef Text = Main.Text;
  unsigned Start = *O;  // the whole statement: `template float ns::Op::Run(...)` names `ns::Op` first
  while (Start > 0 && Text[Start - 1] != ';' && Text[Start - 1] != '}' && Text[Start - 1] != '{')
    --Start;
  for (unsigned I = Start; I < Text.size() && Text[I] != ';';) {
    if (isalpha(Text[I]) || Text[I] == '_') {
      unsigned J = I;
      while (J < Text.size() && (isalnum(Text[J]) || Text[J] == '_'))
        ++J;
      Names.insert(Text.substr(I, J - I).str());
      I = J;
    } else
      ++I;
  }
  reachNamed(Names, true);
}

void Footprint::drain() {
  do {
    while (!Work.empty()) {
      const Decl *D = Work.front();
      Work.pop_front();
      walk(D);
    }
  } while (reachNamed(ConstraintNames, false) && !Work.empty());
}

// ----- plain kernels -----
//
// A target kernel that is a template's instantiation, printed as the plain function it is for
// its one argument list (issue 41's "the kernel becomes plain"): clang's printer writes the
// instantiated body with every template parameter replaced, but loses what an instantiation
// holds outside its text, so these are written back from the AST: `__global__`, the launch
// bounds with their arguments evaluated, and `if constexpr`, whose taken branch alone is
// printed (the other was never instantiated); a generic lambda's body is still a pattern and
// keeps `if constexpr`. A proposal: the pass that uses it (reducer/passes/plain.py) goes
// through the oracle like any other.

// Names for the class types the plain definition spells, declared before it
// (`using __plain_t0 = ck::TensorDescriptor<...>;`): a reduction's tree-sitter parse reads
// `A<B<1>, C<2>>, int> x` in a parameter list or `A<...>::Run<false>(...)` as comparisons, and a
// candidate with more parse errors than its file is never tested.
// A member type of a class template, as written (`CIndex` in `XdlopsGemm`'s body; an
// instantiation keeps the pattern's when it depends on nothing): clang prints its class without
// arguments (`ck::XdlopsGemm::CIndex`), which names nothing, so it is spelled as what it names.
static bool memberOfSpecialization(QualType T) {
  auto *TT = dyn_cast<TypedefType>(T.getTypePtr());
  const DeclContext *DC = TT ? TT->getDecl()->getDeclContext() : nullptr;
  return DC && (isa<ClassTemplateSpecializationDecl>(DC) || (DC->isRecord() && DC->isDependentContext()));
}

// Whether `T`, or what it points or refers to, is an `ext_vector_type`: clang prints a reference
// to one with the attribute after the declarator's name (`_Float16 const &a
// __attribute__((ext_vector_type(4)))`, CK's mfma `run`), which is a reference to a scalar.
static bool vectorWithin(QualType T) {
  while (T->isPointerType() || T->isReferenceType())
    T = T->getPointeeType();
  return isa<ExtVectorType>(T.getCanonicalType());
}

// Whether dependent type `T` names a function's local or parameter (`vector_type<SrcData,
// elem_op_vec_len>`, `decltype(i)` in a generic lambda: CK's copies' local aliases): an alias of
// it at namespace scope would name nothing. One that depends on nothing is aliased with its
// arguments' values (`Sequence<AK0PerBlock, 256, AK1>`, a local `AK1`: `Sequence<4, 256, 8>`).
class NamesLocal : public RecursiveASTVisitor<NamesLocal> {
public:
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    auto *V = dyn_cast<VarDecl>(E->getDecl());
    Found |= V && V->isLocalVarDeclOrParm();
    return !Found;
  }
  bool Found = false;
};

static bool namesLocal(QualType T) {
  if (!T->isInstantiationDependentType())
    return false;
  NamesLocal Check;
  Check.TraverseType(T);
  return Check.Found;
}

class TypeNames {
public:
  // `Next`: the number of the next alias, shared by the definitions of one run and above any
  // the file already has, so that two of them never declare one name. `Visible`: the aliases
  // the file already declares where the definition goes, used instead of declaring new ones
  // (each footprint of a chain would otherwise declare its own for the same types). `Level`:
  // the aliases this footprint's definitions declare, which this one uses where it sees them
  // and adds to; `Here`: where it goes. `NextClosure`: the number of the next functor's class
  // (`PlainHelper::functor`), shared the same way.
  TypeNames(ASTContext &Ctx, const PrintingPolicy &P, unsigned &Next, unsigned &NextClosure, SeenAliases Visible,
            LevelAliases &Level, Place Here)
      : Ctx(Ctx), Policy(P), Next(Next), NextClosure(NextClosure), ByType(std::move(Visible.ByType)),
        FileWithin(std::move(Visible.Within)), Moving(std::move(Visible.Moving)), Level(Level), Here(std::move(Here)) {}
  // `T` as printed, or its alias when it is a template's specialization or an `ext_vector_type`
  // (unless it is dependent and names a local: then as printed, where it stands)
  std::string spell(QualType T) {
    std::string S = T.getAsString(Policy);
    if ((S.find('<') == std::string::npos && !memberOfSpecialization(T) && !vectorWithin(T) && !functorWithin(T)) ||
        namesLocal(T))
      return S;
    if (auto *RD = T->getAsCXXRecordDecl(); RD && !T.hasLocalQualifiers())
      if (auto It = FunctorNames.find(RD); It != FunctorNames.end())
        return It->second.first;
    if (auto Alias = known(T))
      return *Alias;
    auto It = ByText.find(S);
    if (It != ByText.end())
      return It->second;
    if (auto Through = indirect(T))
      return *Through;
    if (Qualifiers Q = T.getQualifiers(); Q.hasQualifiers() && Q.hasOnlyConst())  // a type argument `const Desc`
      return "const " + spell(T.getUnqualifiedType());
    auto Decomposed = decomposed(T);  // its type arguments named first
    // a member type of a specialization (`typename shape<T, C>::acc_t`): through the class's name
    if (auto *TT = T->getAs<TypedefType>(); !Decomposed && TT && !T.hasLocalQualifiers())
      if (auto *RD = dyn_cast<ClassTemplateSpecializationDecl>(TT->getDecl()->getDeclContext()))
        return "typename " + scope(Ctx.getCanonicalTagType(RD)) + TT->getDecl()->getName().str();
    // and a class or enum declared in one (ck_tile's `GemmKernel<...>::GemmCommonKargs`): spelled
    // whole, its class's arguments are a long list tree-sitter misreads
    if (auto *Tag = T->getAsTagDecl(); !Decomposed && Tag && !T.hasLocalQualifiers() && Tag->getIdentifier() &&
                                       !isa<ClassTemplateSpecializationDecl>(Tag))
      if (auto *RD = dyn_cast<ClassTemplateSpecializationDecl>(Tag->getDeclContext()))
        return "typename " + scope(Ctx.getCanonicalTagType(RD)) + Tag->getName().str();
    // a vector as a typedef: tree-sitter does not parse the attribute in an alias declaration
    if (auto *V = dyn_cast<ExtVectorType>(T.getCanonicalType()); V && !T.hasQualifiers()) {
      std::string Element = spell(V->getElementType());
      std::string Name = fresh(S);
      declare(T, Name, "typedef " + Element + " " + Name + " __attribute__((ext_vector_type(" +
                           std::to_string(V->getNumElements()) + ")));");
      return Name;
    }
    if (QualType C = T.getCanonicalType(); !Decomposed && C.getAsString(Policy) != S)
      return spell(C);
    std::string Definition = Decomposed.value_or(S);
    std::string Name = fresh(S);
    declare(T, Name, "using " + Name + " = " + Definition + ";");
    return Name;
  }
  // `T` as the qualifier of a name, `X::`: without the `typename` of a member type
  // (`typename A::traits::V` is no expression; in a qualifier `A::traits` names a type anyway)
  std::string scope(QualType T) {
    std::string S = spell(T);
    return (StringRef(S).starts_with("typename ") ? S.substr(9) : S) + "::";
  }
  // `Spelled` (a type as `spell` or `printType` wrote it) as one name, for a functional cast
  // (`T{}`, `T(x)`), where `const X` does not parse (CK's `SliceLengths{}`, its argument a
  // `const Sequence<1, 4, 8>`), nor `typename X::Y{}` in tree-sitter (ck_tile's epilogue, a
  // member type of its kernel class): a qualified, pointer or reference type, or a member type, gets an alias of its own,
  // `using __plain_t9 = const __plain_t8;`, the same type. `T`: the type spelled.
  std::string named(const std::string &Spelled, QualType T) {
    StringRef S(Spelled);
    if (!S.starts_with("const ") && !S.starts_with("typename ") && !S.ends_with("*") && !S.ends_with("&"))
      return Spelled;
    if (auto Alias = known(T))
      return *Alias;
    auto [It, New] = Whole.insert({Spelled, ""});
    if (New) {
      It->second = "__plain_t" + std::to_string(Next++);
      declare(T, It->second, "using " + It->second + " = " + Spelled + ";");
    }
    return It->second;
  }
  // the aliases that stand in the definition's own text: a dependent type's (a generic
  // lambda's, as written), and one that names such an alias
  std::string Declarations;
  // the classes printed for the definition's lambdas (`PlainHelper::functor`), after
  // `Declarations`, each before the one whose body names it; and their names, by closure type,
  // which spell its objects (a local holding a lambda, a capture of one), with the object that
  // stands for the lambda
  std::string Functors;
  std::map<const CXXRecordDecl *, std::pair<std::string, std::string>> FunctorNames;  // name, object
  std::string freshFunctor() { return "__plain_closure_" + std::to_string(NextClosure++); }
  // Whether `T`, or what it points or refers to, is a closure type printed as a functor's class.
  bool functorWithin(QualType T) const {
    while (T->isPointerType() || T->isReferenceType())
      T = T->getPointeeType();
    return T->getAsCXXRecordDecl() && FunctorNames.count(T->getAsCXXRecordDecl());
  }
  // the level's aliases the definition names, with those they name, in the order declared
  std::vector<unsigned> levelAliases() const {
    std::set<unsigned> Out(Uses.begin(), Uses.end());
    for (auto It = Out.rbegin(); It != Out.rend(); ++It)
      for (const std::string &N : aliasNames(Level.All[*It].Text))
        if (auto D = Level.ByName.find(N); D != Level.ByName.end() && D->second != *It)
          Out.insert(D->second);  // declared before: a smaller index, still ahead of the reverse walk
    return {Out.begin(), Out.end()};
  }
  // the file's aliases it names that must move to be seen, its level aliases' included
  std::set<std::string> moves() const {
    std::set<std::string> Out = Moved;
    for (unsigned I : levelAliases())
      Out.insert(Level.All[I].Moves.begin(), Level.All[I].Moves.end());
    return Out;
  }

private:
  // The alias of `T`'s canonical type this definition has or sees, if any: two spellings of one
  // type (a typedef, the class's own name) share it. Not for a dependent type: a generic lambda's
  // is as written.
  std::optional<std::string> known(QualType T) {
    if (T->isDependentType())
      return std::nullopt;
    auto It = ByType.find(Ctx.getCanonicalType(T));
    if (It != ByType.end()) {
      if (Moving.count(It->second))
        Moved.insert(It->second);
      return It->second;
    }
    if (auto I = Level.visible(Ctx.getCanonicalType(T), Here)) {
      Uses.insert(*I);
      return Level.All[*I].Name;
    }
    return std::nullopt;
  }
  // A new alias's name for `T`, spelled `S`.
  std::string fresh(const std::string &S) {
    std::string Name = "__plain_t" + std::to_string(Next++);
    ByText[S] = Name;
    return Name;
  }
  // Declares alias `Name` of `T`: one of the level's, in the namespaces open where the
  // definition goes or the deepest of those of the aliases it names; in the definition's own
  // text when `T` is dependent or `Declaration` names an alias declared there.
  void declare(QualType T, const std::string &Name, const std::string &Declaration) {
    std::vector<std::string> Within(Here.Namespaces.begin(), Here.Namespaces.begin() + Here.Open);
    std::set<std::string> Moves;
    bool Own = T->isDependentType();
    for (const std::string &N : aliasNames(Declaration)) {
      if (N == Name)
        continue;
      Own |= Local.count(N) > 0;
      const std::vector<std::string> *In = nullptr;
      if (auto D = Level.ByName.find(N); D != Level.ByName.end()) {
        In = &Level.All[D->second].Where.Namespaces;
        Moves.insert(Level.All[D->second].Moves.begin(), Level.All[D->second].Moves.end());
      } else if (Moving.count(N))
        Moves.insert(N);
      else if (auto F = FileWithin.find(N); F != FileWithin.end())
        In = &F->second;
      if (In && In->size() > Within.size())
        Within = *In;
    }
    if (Own) {
      Declarations += Declaration + "\n";
      Local.insert(Name);
      if (!T->isDependentType())
        ByType[Ctx.getCanonicalType(T)] = Name;
      return;
    }
    Uses.insert(Level.All.size());
    Level.add({Ctx.getCanonicalType(T), Name, Declaration, Place{Here.At, std::move(Within), Here.Open},
               std::move(Moves)});
  }

  // A pointer or a reference to a (const) type, as its pointee's spelling: a static member's
  // `const Desc &` parameter aliased whole (`using __plain_t9 = const ck::Tuple<...> &;`) is an
  // argument list tree-sitter loses its way in.
  std::optional<std::string> indirect(QualType T) {
    if (T.hasLocalQualifiers() || !(T->isPointerType() || T->isReferenceType()))
      return std::nullopt;
    QualType P = T->getPointeeType();
    Qualifiers Q = P.getQualifiers();
    if (Q.hasQualifiers() && !Q.hasOnlyConst())
      return std::nullopt;
    const char *Suffix = T->isPointerType() ? " *" : T->isLValueReferenceType() ? " &" : " &&";
    return (Q.hasConst() ? "const " : "") + spell(P.getUnqualifiedType()) + Suffix;
  }
  // A class template's specialization with each type argument spelled (so aliased) on its own:
  // tree-sitter loses its way in nested argument lists even in an alias.
  std::optional<std::string> decomposed(QualType T) {
    auto *S = dyn_cast_or_null<ClassTemplateSpecializationDecl>(T->getAsCXXRecordDecl());
    if (!S || T.hasLocalQualifiers() || !isa<RecordType>(T.getCanonicalType()))
      return std::nullopt;
    std::string Name = S->getSpecializedTemplate()->getQualifiedNameAsString();
    if (Name.find('(') != std::string::npos)  // `(anonymous namespace)::`
      return std::nullopt;
    std::vector<std::string> Args;
    for (const TemplateArgument &A : S->getTemplateArgs().asArray()) {
      if (A.getKind() == TemplateArgument::Pack) {
        for (const TemplateArgument &E : A.pack_elements())
          Args.push_back(argument(E));
      } else
        Args.push_back(argument(A));
    }
    std::string Out = Name + "<";
    for (size_t I = 0; I < Args.size(); ++I)
      Out += (I ? ", " : "") + Args[I];
    return Out + ">";
  }
public:
  std::string argument(const TemplateArgument &A) {
    if (A.getKind() == TemplateArgument::Type)
      return spell(A.getAsType());
    if (A.getKind() == TemplateArgument::Declaration)
      if (auto *O = dyn_cast<TemplateParamObjectDecl>(A.getAsDecl()))
        if (auto V = value(O->getValue(), O->getType()))
          return *V;
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    A.print(Policy, OS, /*IncludeType=*/true);
    return Out;
  }
  // A class-type template argument's value as a literal of its type. Clang's own printing
  // writes an enum member as its number (`kernel_config{{1, 1}, 32, ...}`), which does not
  // compile back; here it is cast to its enum. Nullopt: a value of a kind this does not print
  // (a float, a pointer, a union), left to clang.
  std::optional<std::string> value(const APValue &V, QualType T) {
    T = T.getCanonicalType().getUnqualifiedType();
    switch (V.getKind()) {
    case APValue::Int: {
      std::string N = llvm::toString(V.getInt(), 10);
      if (T->isBooleanType())
        return std::string(V.getInt().getBoolValue() ? "true" : "false");
      if (T->isEnumeralType() || !T->isSpecificBuiltinType(BuiltinType::Int))
        return "(" + T.getAsString(Policy) + ")" + N;
      return N;
    }
    case APValue::Struct: {
      auto *RD = T->getAsCXXRecordDecl();
      if (!RD)
        return std::nullopt;
      std::vector<std::string> Parts;
      for (unsigned I = 0; I < V.getStructNumBases(); ++I) {
        auto B = value(V.getStructBase(I), (RD->bases_begin() + I)->getType());
        if (!B)
          return std::nullopt;
        Parts.push_back(*B);
      }
      unsigned I = 0;
      for (const FieldDecl *F : RD->fields()) {
        if (F->isUnnamedBitField())
          continue;
        auto E = value(V.getStructField(I++), F->getType());
        if (!E)
          return std::nullopt;
        Parts.push_back(*E);
      }
      std::string Out = spell(T) + "{";
      for (size_t J = 0; J < Parts.size(); ++J)
        Out += (J ? ", " : "") + Parts[J];
      return Out + "}";
    }
    case APValue::Array: {
      const ArrayType *A = T->getAsArrayTypeUnsafe();
      auto *CA = dyn_cast_or_null<ConstantArrayType>(A);
      if (!CA)
        return std::nullopt;
      std::string Out = "{";
      for (uint64_t J = 0; J < CA->getZExtSize(); ++J) {
        const APValue &E = J < V.getArrayInitializedElts() ? V.getArrayInitializedElt(J) : V.getArrayFiller();
        auto P = value(E, CA->getElementType());
        if (!P)
          return std::nullopt;
        Out += (J ? ", " : "") + *P;
      }
      return Out + "}";
    }
    default:
      return std::nullopt;
    }
  }

private:
  ASTContext &Ctx;
  PrintingPolicy Policy;
  unsigned &Next, &NextClosure;
  AliasesByType ByType;  // by canonical type: the file's visible aliases, then this definition's own
  std::map<std::string, std::vector<std::string>> FileWithin;  // the namespaces of the file's aliases
  std::set<std::string> Moving, Moved;  // the file's aliases seen once moved; those it names
  LevelAliases &Level;
  Place Here;
  std::set<unsigned> Uses;  // the level's aliases it names
  std::set<std::string> Local;  // the aliases `Declarations` declares
  std::map<std::string, std::string> ByText;  // a dependent type's, by its spelling
  std::map<std::string, std::string> Whole;  // `named`'s aliases, by the spelling they stand for
};

// Whether `T`, or what it points or refers to, is named through an alias: a class template's
// specialization, a member type of one (ck_tile's `const ADataType *a_start`).
static bool aliasedWithin(QualType T, const PrintingPolicy &Policy) {
  while (T->isPointerType() || T->isReferenceType())
    T = T->getPointeeType();
  QualType Bare = T.getLocalUnqualifiedType();
  return (Bare.getAsString(Policy).find('<') != std::string::npos && Bare->getAsCXXRecordDecl()) ||
         memberOfSpecialization(Bare);
}

// A type as a plain definition writes it: a class template's specialization, or a vector, through
// its alias. Its own qualifiers are written around the alias: `const` before a value's, and
// `const`, `volatile` and `__restrict` after a pointer (hipconv's `const ToType<cfg.type>*
// __restrict__` parameters, whose alias template's argument clang's printer spells with the
// enum's members as integers).
static void printType(QualType T, const std::string &Name, TypeNames &Names, const PrintingPolicy &Policy,
                      raw_ostream &OS) {
  QualType Bare = T.getLocalUnqualifiedType();
  Qualifiers Q = T.getLocalQualifiers();
  Qualifiers Other = Q;
  Other.removeCVRQualifiers();
  bool Aliased = Bare.getAsString(Policy).find('<') != std::string::npos || memberOfSpecialization(Bare) ||
                 vectorWithin(Bare) || Names.functorWithin(Bare);
  bool Pointer = Bare->isPointerType();
  if (!Aliased || !Other.empty() || (!Pointer && Q.getCVRQualifiers() & ~Qualifiers::Const)) {
    T.print(OS, Policy, Name);
    return;
  }
  std::string Spelled = Names.spell(Bare);
  std::string After = Pointer && Q.hasQualifiers() ? " " + Q.getAsString(Policy) : "";
  bool Space = !Name.empty() && (!After.empty() || (!StringRef(Spelled).ends_with("&") &&
                                                     !StringRef(Spelled).ends_with("*")));
  OS << (!Pointer && Q.hasConst() ? "const " : "") << Spelled << After << (Space ? " " : "") << Name;
}

// The return type a callee's plain definition declares: what `auto` deduced, as a type; null
// when it is left undeduced.
static QualType calleeReturnType(const FunctionDecl *FD) {
  QualType R = FD->getReturnType();
  if (auto *A = dyn_cast<AutoType>(R.getTypePtr()); A && A->isDeduced())  // `auto f()`: what it deduced
    R = A->getDeducedType();
  // what it deduced as its return statement spelled it (`integral_constant<decltype(X * Y), X * Y>`,
  // `Tuple<decltype(zs)...>`, names of the template or a lambda's parameters): the type itself
  if (R->getContainedDeducedType() && !R.getCanonicalType()->getContainedDeducedType())
    R = R.getCanonicalType();
  return R->getContainedDeducedType() ? QualType() : R;
}

// What a plain definition of `FD` (returning `R`) writes before its return type that decides
// its code: `constexpr`, `__host__`, `__device__`, inlining. An instantiation whose types are not
// literal is constexpr in name only (CK's `BlockwiseGemmXdlops_..._Selector()`), and so is one
// that never gives a constant (a lambda's call operator, implicitly constexpr, reading
// `threadIdx`): a plain function so declared does not compile.
static std::string specifiers(ASTContext &Ctx, const FunctionDecl *FD, QualType R) {
  SmallVector<PartialDiagnosticAt, 8> Never;
  bool Constexpr = FD->isConstexpr() && R->isLiteralType(Ctx) &&
                   std::all_of(FD->param_begin(), FD->param_end(),
                               [&](const ParmVarDecl *P) { return P->getType()->isLiteralType(Ctx); }) &&
                   Expr::isPotentialConstantExpr(FD, Never);
  std::string Out = Constexpr ? "constexpr " : "";
  if (FD->hasAttr<CUDAHostAttr>())
    Out += "__attribute__((host)) ";
  if (FD->hasAttr<CUDADeviceAttr>())
    Out += "__attribute__((device)) ";
  if (FD->hasAttr<AlwaysInlineAttr>())
    Out += "__attribute__((always_inline)) ";
  if (FD->hasAttr<NoInlineAttr>())
    Out += "__attribute__((noinline)) ";
  return Out;
}

// What a lambda's call operators name of the function around them, which a class outside that
// function does not see: its locals (`Locals`, captured or not: a constant needs no capture;
// `InConstant` those named in a constant expression, a `constexpr` local's initialiser, a
// `static_assert`, a template argument, which a member of the object cannot be read in) and
// local aliases (`Aliases`), in the order first named; `Found`: anything else of it (a
// structured binding, a local class).
class Enclosing : public RecursiveASTVisitor<Enclosing> {
public:
  void walk(const FunctionDecl *Call) {
    this->Call = Call;
    TraverseDecl(const_cast<FunctionDecl *>(Call));
  }
  bool TraverseVarDecl(VarDecl *V) { return constant(V->isConstexpr(), [&] { return Base::TraverseVarDecl(V); }); }
  bool TraverseStaticAssertDecl(StaticAssertDecl *D) {
    return constant(true, [&] { return Base::TraverseStaticAssertDecl(D); });
  }
  bool TraverseTemplateArgumentLoc(const TemplateArgumentLoc &A) {
    return constant(true, [&] { return Base::TraverseTemplateArgumentLoc(A); });
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (auto *V = dyn_cast<VarDecl>(E->getDecl()); V && local(V)) {
      if (std::find(Locals.begin(), Locals.end(), V) == Locals.end())
        Locals.push_back(V);
      if (Constant)
        InConstant.insert(V);
    } else
      Found |= local(E->getDecl());
    return true;
  }
  bool VisitTypedefTypeLoc(TypedefTypeLoc TL) {
    if (local(TL.getDecl()) && std::find(Aliases.begin(), Aliases.end(), TL.getDecl()) == Aliases.end())
      Aliases.push_back(TL.getDecl());
    return true;
  }
  bool VisitTagTypeLoc(TagTypeLoc TL) { return !(Found |= local(TL.getDecl())); }
  std::vector<const VarDecl *> Locals;
  std::set<const VarDecl *> InConstant;
  std::vector<const TypedefNameDecl *> Aliases;
  bool Found = false;

private:
  using Base = RecursiveASTVisitor<Enclosing>;
  template <class F> bool constant(bool Is, F Traverse) {
    Constant += Is;
    bool Out = Traverse();
    Constant -= Is;
    return Out;
  }
  int Constant = 0;  // inside a constant expression
  bool local(const Decl *D) const {
    const DeclContext *DC = D->getDeclContext();
    return DC->isFunctionOrMethod() && !Call->Encloses(DC);
  }
  const FunctionDecl *Call = nullptr;
};

// An initialiser written as braces alone (`= {}`, `= {1, 2}`): no type before them, which
// tree-sitter needs to read one as a default argument.
static bool braced(const Expr *E) {
  E = E->IgnoreImplicit();
  if (isa<InitListExpr>(E))
    return true;
  auto *C = dyn_cast<CXXConstructExpr>(E);
  return C && C->isListInitialization() && !isa<CXXTemporaryObjectExpr>(C);
}

// Whether a value of type `T` written as a braced list (`TypeNames::value`) initialises its
// members in order: an aggregate throughout (ck_tile's `array` takes an `initializer_list`).
static bool aggregateThroughout(QualType T) {
  if (auto *A = T->getAsArrayTypeUnsafe())
    return aggregateThroughout(A->getElementType());
  auto *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return true;
  return RD->isAggregate() &&
         std::all_of(RD->bases_begin(), RD->bases_end(),
                     [](const CXXBaseSpecifier &B) { return aggregateThroughout(B.getType()); }) &&
         std::all_of(RD->field_begin(), RD->field_end(),
                     [](const FieldDecl *F) { return aggregateThroughout(F->getType()); });
}

// Prints what the statement printer cannot: `if constexpr`, and names qualified by a class
// template's specialization, through their alias.
class PlainHelper : public PrinterHelper {
public:
  // `Within`: the class of a member function printed as a free one, whose own members its body
  // names without their class; `Self`: for a non-static one, the name of its object parameter,
  // which stands for `*this`
  PlainHelper(ASTContext &Ctx, const PrintingPolicy &P, TypeNames &Names, const CXXRecordDecl *Within = nullptr,
              std::string Self = "")
      : Ctx(Ctx), Policy(P), Names(Names), Within(Within), Self(std::move(Self)) {}
  // `Name(parameters)` then the body of instantiation `FD`, printed through this helper.
  // `Object`: the object parameter of a non-static member printed as a free function, first;
  // `Qualifier`: what follows the parameters (` const`).
  std::string rest(const FunctionDecl *FD, StringRef Name, StringRef Object = "", StringRef Qualifier = "") {
    std::string Head = head(FD, Name, Object, Qualifier);  // first: the aliases it names are numbered first
    return Head + body(FD);
  }
  // `Name(parameters)` and `Qualifier`, on a line.
  std::string head(const FunctionDecl *FD, StringRef Name, StringRef Object = "", StringRef Qualifier = "") {
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    OS << Name << "(" << Object << (!Object.empty() && FD->getNumParams() ? ", " : "");
    for (unsigned I = 0; I < FD->getNumParams(); ++I) {
      const ParmVarDecl *P = FD->getParamDecl(I);
      OS << (I ? ", " : "");
      // a default argument some call used, instantiated then (those form the trailing run): the
      // calls rewritten to this function still leave it out. Tree-sitter parses neither an
      // unnamed parameter with one nor a braced one (ck_tile's `bool_constant<oob_conditional_check>
      // = {}`): the parameter gets a name, which nothing reads, and the braces their type
      // (`T x = T{}`, the same value)
      bool Default = P->hasDefaultArg() && !P->hasUninstantiatedDefaultArg() && !P->hasUnparsedDefaultArg();
      std::string Name = P->getName().empty() && Default ? "__plain_unnamed_" + std::to_string(I) : P->getName().str();
      printType(P->getType(), Name, Names, Policy, OS);
      if (Default) {
        std::string Value;
        llvm::raw_string_ostream V(Value);
        const_cast<Expr *>(P->getDefaultArg())->printPretty(V, this, Policy, 0, "\n", &Ctx);
        OS << " = ";
        if (braced(P->getDefaultArg()))
          printType(P->getType().getNonReferenceType().getUnqualifiedType(), "", Names, Policy, OS);
        OS << Value;
      }
    }
    OS << ")" << Qualifier << "\n";
    return Out;
  }
  // The body of instantiation `FD`.
  std::string body(const FunctionDecl *FD) {
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    FD->getBody()->printPretty(OS, this, Policy, 0, "\n", &Ctx);
    return Out;
  }
  bool handledStmt(Stmt *S, raw_ostream &OS) override {
    if (!Self.empty() && throughSelf(S, OS))
      return true;
    if (auto *L = dyn_cast<LambdaExpr>(S))
      return functor(L, OS);
    if (auto *R = dyn_cast<ReturnStmt>(S))
      return moved(R, OS);
    if (auto *If = dyn_cast<IfStmt>(S); If && If->isConstexpr() && !If->getConditionVariable())
      return constexprIf(If, OS);
    if (auto *DS = dyn_cast<DeclStmt>(S); DS && DS->isSingleDecl())
      return declaration(DS, OS);
    if (auto *A = dyn_cast<AttributedStmt>(S))
      return attributed(A, OS);
    if (auto *E = dyn_cast<DeclRefExpr>(S))
      return reference(E, OS);
    if (auto *M = dyn_cast<MemberExpr>(S); M && M->hasExplicitTemplateArgs())
      return memberArguments(M, OS);
    if (auto *E = dyn_cast<SubstNonTypeTemplateParmExpr>(S))
      if (auto *D = dyn_cast<DeclRefExpr>(E->getReplacement()->IgnoreParenImpCasts()))
        if (auto *O = dyn_cast<TemplateParamObjectDecl>(D->getDecl()))
          if (auto V = Names.value(O->getValue(), O->getType())) {
            OS << *V;
            return true;
          }
    // `sizeof...(Lengths)`: the pack has no name in a plain function
    if (auto *E = dyn_cast<SizeOfPackExpr>(S); E && !E->isValueDependent()) {
      OS << "((__SIZE_TYPE__)" << E->getPackLength() << ")";
      return true;
    }
    if (auto *E = dyn_cast<Expr>(S); E && typed(E, OS))
      return true;
    if (auto *E = dyn_cast<Expr>(S))
      return folded(E, OS);
    return false;
  }


  // A lambda as an object of a class printed before the definition (`TypeNames::Functors`),
  // `__plain_closure_0{acc, x}`: a callee it is passed to takes a named type then, and is printed
  // at the next level, as are those its call operators call, which are plain code. Its captures
  // are members named as the captured variables, so that the body reads them unchanged: a
  // reference for one by reference, the value for one by copy; `this` the member `Self` (in a
  // member printed as a free function). A constant of the function around it that the body
  // names, captured or not, is a static member of its value, which a constant expression in the
  // body can read (not through the object); a local alias, a member alias. A generic lambda gets
  // one call operator for each of its instantiations, which take the types they were
  // instantiated for. False (printed as written, its callee kept): a lambda this does not print
  // so (`functorClass`).
  bool functor(LambdaExpr *E, raw_ostream &OS) {
    const CXXRecordDecl *RD = E->getLambdaClass();
    auto Known = Names.FunctorNames.find(RD);
    if (Known == Names.FunctorNames.end()) {
      std::string Object;
      auto Class = functorClass(E, Object);
      if (!Class)
        return false;
      std::string Name = Names.freshFunctor();
      Known = Names.FunctorNames.insert({RD, {Name, Name + "{" + Object + "}"}}).first;
      Names.Functors += "struct " + Name + " {\n" + *Class + "};\n";
    }
    OS << Known->second.second;
    return true;
  }
  // The declarations of the class for lambda `E`, and in `Object` its members' initialisers
  // (the captured names). Nullopt: one in a template's pattern; an init-capture, a capture of a
  // pack, of a structured binding, of an array by copy (no aggregate copies it), `*this` or
  // `this` without `Self`; a call operator that names anything else of the function around it
  // (`Enclosing`: a local that is neither captured nor a constant whose value prints, a captured
  // constant whose value does not print that a constant expression reads, a local class),
  // whose return type is not deduced, or two instantiations with the same parameter
  // types; a lambda converted to a function pointer, which the class has no conversion for.
  std::optional<std::string> functorClass(LambdaExpr *E, std::string &Object) {
    CXXRecordDecl *RD = E->getLambdaClass();
    if (RD->isDependentContext())
      return std::nullopt;
    for (const Decl *D : RD->decls()) {
      auto *T = dyn_cast<FunctionTemplateDecl>(D);
      auto *F = T ? T->getTemplatedDecl() : dyn_cast<FunctionDecl>(D);
      if (isa_and_nonnull<CXXConversionDecl>(F) &&
          (F->isReferenced() || (T && std::any_of(T->spec_begin(), T->spec_end(),
                                                  [](const FunctionDecl *S) { return S->isReferenced(); }))))
        return std::nullopt;
    }
    std::vector<const FunctionDecl *> Calls;
    if (FunctionTemplateDecl *T = RD->getDependentLambdaCallOperator()) {
      for (const FunctionDecl *S : T->specializations())
        if (S->hasBody())
          Calls.push_back(S);
    } else
      Calls.push_back(RD->getLambdaCallOperator());
    std::set<std::vector<const void *>> Signatures;
    Enclosing Named;
    for (const FunctionDecl *Call : Calls) {
      Named.walk(Call);
      std::vector<const void *> Parameters;
      for (const ParmVarDecl *P : Call->parameters())
        Parameters.push_back(P->getType().getCanonicalType().getAsOpaquePtr());
      if (Named.Found || !Call->hasBody() || calleeReturnType(Call).isNull() || !Signatures.insert(Parameters).second)
        return std::nullopt;
    }
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    std::set<StringRef> Declared;  // the class's names
    for (const TypedefNameDecl *A : Named.Aliases) {
      if (!Declared.insert(A->getName()).second)
        return std::nullopt;
      OS << "using " << A->getName() << " = " << Names.spell(A->getUnderlyingType().getCanonicalType()) << ";\n";
    }
    llvm::DenseMap<const ValueDecl *, FieldDecl *> Fields;
    FieldDecl *ThisField = nullptr;
    RD->getCaptureFields(Fields, ThisField);
    std::set<const VarDecl *> Constants;
    for (const VarDecl *V : Named.Locals) {
      FieldDecl *F = Fields.lookup(V);
      // a copy a mutable lambda may change stays a member
      if (F && E->isMutable() && !F->getType()->isReferenceType())
        continue;
      const APValue *Value = V->isUsableInConstantExpressions(Ctx) && !V->getType()->isReferenceType() &&
                                     aggregateThroughout(V->getType())
                                 ? V->evaluateValue()
                                 : nullptr;
      auto Literal = Value ? Names.value(*Value, V->getType()) : std::nullopt;
      if (!Literal && F && !Named.InConstant.count(V))
        continue;
      if (!Literal || !Declared.insert(V->getName()).second)
        return std::nullopt;
      OS << "static constexpr ";
      printType(V->getType().getCanonicalType().getUnqualifiedType(), V->getName().str(), Names, Policy, OS);
      OS << " = " << *Literal << ";\n";
      Constants.insert(V);
    }
    for (const LambdaCapture &C : E->captures()) {
      if (C.capturesThis()) {
        if (Self.empty() || C.getCaptureKind() != LCK_This || !ThisField)
          return std::nullopt;
        printType(Ctx.getLValueReferenceType(ThisField->getType()->getPointeeType()), Self, Names, Policy, OS);
        Object += (Object.empty() ? "" : ", ") + Self;
        OS << ";\n";
        continue;
      }
      auto *V = C.capturesVariable() ? dyn_cast<VarDecl>(C.getCapturedVar()) : nullptr;
      FieldDecl *F = V ? Fields.lookup(V) : nullptr;
      if (!F || V->isInitCapture() || C.isPackExpansion() || V->isParameterPack() || V->getName().empty() ||
          (C.getCaptureKind() == LCK_ByCopy && F->getType()->isArrayType()) ||
          (!Constants.count(V) && !Declared.insert(V->getName()).second))
        return std::nullopt;
      if (Constants.count(V))
        continue;
      printType(F->getType(), V->getName().str(), Names, Policy, OS);
      Object += (Object.empty() ? "" : ", ") + V->getName().str();
      OS << ";\n";
    }
    StringRef Qualifier = E->isMutable() ? "" : " const";
    // where they may print one operator, the bodies first, to compare
    std::vector<std::string> Bodies;
    if (Calls.size() > 1 && Ctx.getLangOpts().CPlusPlus20)
      for (const FunctionDecl *Call : Calls)
        Bodies.push_back(PlainHelper(Ctx, Policy, Names, Within, Self).body(Call));
    if (auto One = oneCallOperator(Calls, Bodies, Qualifier)) {
      OS << *One;
      return Out;
    }
    for (size_t I = 0; I < Calls.size(); ++I) {
      QualType R = calleeReturnType(Calls[I]);
      OS << specifiers(Ctx, Calls[I], R);
      printType(R, "", Names, Policy, OS);
      PlainHelper Helper(Ctx, Policy, Names, Within, Self);
      OS << " " << (Bodies.empty() ? Helper.rest(Calls[I], "operator()", "", Qualifier)
                                   : Helper.head(Calls[I], "operator()", "", Qualifier) + Bodies[I]);
    }
    return Out;
  }
  // A generic lambda's instantiations whose bodies print the same, which differ only in the
  // types of their parameters (ck_tile's element-wise lambdas given `number<0>` to
  // `number<127>` by `static_for`: 128 copies, 22 KB), as one call operator with `auto` where
  // the lambda's parameter types differ (C++20's abbreviated template), their `const` and `&`
  // kept: every call deduces the type the lambda's did and instantiates the body that printed
  // the same for it. `Bodies`: each instantiation's, printed (none: one instantiation, or
  // before C++20). Nullopt: no bodies, a default argument, or a difference in anything but the
  // types (a body, the return type, `constexpr`, a parameter's `const` or reference).
  std::optional<std::string> oneCallOperator(const std::vector<const FunctionDecl *> &Calls,
                                             const std::vector<std::string> &Bodies, StringRef Qualifier) {
    if (Bodies.empty() || std::any_of(Bodies.begin(), Bodies.end(), [&](const std::string &B) { return B != Bodies[0]; }))
      return std::nullopt;
    const FunctionDecl *First = Calls.front();
    QualType R = calleeReturnType(First);
    std::string Specifiers = specifiers(Ctx, First, R);
    for (const FunctionDecl *Call : Calls)
      if (Call->getNumParams() != First->getNumParams() || !Ctx.hasSameType(calleeReturnType(Call), R) ||
          specifiers(Ctx, Call, R) != Specifiers)
        return std::nullopt;
    // a parameter's form: its reference kind and the qualifiers of what it is or refers to
    auto form = [](QualType T) {
      unsigned Ref = T->isLValueReferenceType() ? 1 : T->isRValueReferenceType() ? 2 : 0;
      return std::make_pair(Ref, (Ref ? T->getPointeeType() : T).getCanonicalType().getCVRQualifiers());
    };
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    OS << Specifiers;
    printType(R, "", Names, Policy, OS);
    OS << " operator()(";
    for (unsigned I = 0; I < First->getNumParams(); ++I) {
      const ParmVarDecl *P = First->getParamDecl(I);
      QualType T = P->getType();
      if (P->hasDefaultArg())
        return std::nullopt;
      OS << (I ? ", " : "");
      if (std::all_of(Calls.begin(), Calls.end(),
                      [&](const FunctionDecl *C) { return Ctx.hasSameType(C->getParamDecl(I)->getType(), T); })) {
        printType(T, P->getName().str(), Names, Policy, OS);
        continue;
      }
      if (std::any_of(Calls.begin(), Calls.end(),
                      [&](const FunctionDecl *C) { return form(C->getParamDecl(I)->getType()) != form(T); }))
        return std::nullopt;
      auto [Ref, CVR] = form(T);
      OS << (CVR & Qualifiers::Const ? "const " : "") << (CVR & Qualifiers::Volatile ? "volatile " : "") << "auto"
         << (Ref == 1 ? " &" : Ref == 2 ? " &&" : " ") << P->getName();
    }
    OS << ")" << Qualifier << "\n" << Bodies[0];
    return Out;
  }
  // `return x;` of a local the instantiation does not construct in the caller's object (no
  // NRVO: clang decides it on the template, where a dependent type keeps it from it), as a move:
  // a plain function would construct it there, and the code differ (ck_tile's pipeline returning
  // its `c_block_tile`: 228 VGPRs and no spills against the original's 256 and 11).
  bool moved(ReturnStmt *R, raw_ostream &OS) {
    Expr *V = R->getRetValue();
    auto *D = V ? dyn_cast<DeclRefExpr>(V->IgnoreUnlessSpelledInSource()) : nullptr;
    auto *VD = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) || VD->isNRVOVariable() ||
        !VD->getType()->isRecordType() || VD->getType().isVolatileQualified())
      return false;
    OS << "return static_cast<";
    printType(Ctx.getRValueReferenceType(VD->getType()), "", Names, Policy, OS);
    OS << ">(";
    D->printPretty(OS, this, Policy, 0, "\n", &Ctx);
    OS << ");\n";
    return true;
  }
private:
  // A type the statement printer writes as the template spelled it: in a static member's body
  // its template arguments may name the class's members (`Sequence<AK0PerBlock, 256, AK1>`,
  // `Number<NumDTensor>`), which mean nothing outside the class, and a long argument list is
  // one tree-sitter loses its way in. One that depends on nothing (a generic lambda's `auto`
  // parameters do) and names nothing local goes through its alias, whose arguments are the
  // values; nullopt: as written.
  std::optional<std::string> respelled(QualType T) {
    if (!T.isNull() && T->isInstantiationDependentType())
      return dependent(T);
    if (T.isNull() || T->getContainedDeducedType() ||
        (T.getAsString(Policy).find('<') == std::string::npos && !memberOfSpecialization(T) && !vectorWithin(T)) ||
        !nameable(T.getCanonicalType()))
      return std::nullopt;
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    printType(T, "", Names, Policy, OS);
    return Out;
  }
  // A generic lambda's dependent specialization in a member's body whose arguments are
  // expressions (`Number<a_thread_desc_.CalculateOffset(make_tuple(0, 0, 0, k + i))>`): the type
  // printer writes them as the template did, the class's members unqualified, so the arguments
  // are printed here, through this helper. Nullopt: as written.
  std::optional<std::string> dependent(QualType T) {
    auto *S = T->getAs<TemplateSpecializationType>();
    if (!Within || !S || T.hasLocalQualifiers() ||
        std::none_of(S->template_arguments().begin(), S->template_arguments().end(),
                     [](const TemplateArgument &A) { return A.getKind() == TemplateArgument::Expression; }))
      return std::nullopt;
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    S->getTemplateName().print(OS, Policy, TemplateName::Qualified::AsWritten);
    OS << "<";
    bool First = true;
    for (const TemplateArgument &A : S->template_arguments()) {
      OS << (First ? "" : ", ");
      First = false;
      if (A.getKind() == TemplateArgument::Expression)
        A.getAsExpr()->printPretty(OS, this, Policy, 0, "\n", &Ctx);
      else
        A.print(Policy, OS, true);
    }
    OS << ">";
    return Out;
  }
  // Whether canonical type `T` can be named before the function: no closure, no local or
  // unnamed class, in it or in its template arguments.
  static bool nameable(QualType T) {
    if (T->isPointerType() || T->isReferenceType())
      return nameable(T->getPointeeType().getCanonicalType());
    if (auto *A = T->getAsArrayTypeUnsafe())
      return nameable(A->getElementType().getCanonicalType());
    const TagDecl *D = T->getAsTagDecl();
    if (!D)
      return true;
    if (!D->getIdentifier() || D->getParentFunctionOrMethod())
      return false;
    auto *S = dyn_cast<ClassTemplateSpecializationDecl>(D);
    return !S || std::all_of(S->getTemplateArgs().asArray().begin(), S->getTemplateArgs().asArray().end(),
                             nameableArgument);
  }
  static bool nameableArgument(const TemplateArgument &A) {
    if (A.getKind() == TemplateArgument::Pack)
      return std::all_of(A.pack_begin(), A.pack_end(), nameableArgument);
    return A.getKind() != TemplateArgument::Type || nameable(A.getAsType().getCanonicalType());
  }
  // The expressions whose text starts with, or holds, a type: each as the statement printer
  // writes it, the type respelled (as one name where a functional cast needs one).
  bool typed(Expr *E, raw_ostream &OS) {
    auto Arguments = [&](auto Range, const char *Open, const char *Close) {
      OS << Open;
      bool First = true;
      for (Expr *A : Range) {
        if (isa<CXXDefaultArgExpr>(A))
          break;
        OS << (First ? "" : ", ");
        First = false;
        A->printPretty(OS, this, Policy, 0, "\n", &Ctx);
      }
      OS << Close;
    };
    if (auto *C = dyn_cast<CXXTemporaryObjectExpr>(E)) {
      QualType W = C->getTypeSourceInfo()->getType();
      auto T = respelled(W);
      if (!T)
        return false;
      OS << Names.named(*T, W);
      if (C->isStdInitListInitialization())
        Arguments(C->arguments(), "", "");
      else if (C->isListInitialization())
        Arguments(C->arguments(), "{", "}");
      else
        Arguments(C->arguments(), "(", ")");
      return true;
    }
    if (auto *C = dyn_cast<CXXFunctionalCastExpr>(E)) {
      auto T = respelled(C->getTypeAsWritten());
      if (!T)
        return false;
      bool List = C->isListInitialization();  // the braces are the initialiser's own
      OS << Names.named(*T, C->getTypeAsWritten()) << (List ? "" : "(");
      C->getSubExpr()->printPretty(OS, this, Policy, 0, "\n", &Ctx);
      OS << (List ? "" : ")");
      return true;
    }
    if (auto *C = dyn_cast<CXXUnresolvedConstructExpr>(E)) {
      auto T = respelled(C->getTypeAsWritten());
      if (!T)
        return false;
      OS << Names.named(*T, C->getTypeAsWritten());
      bool List = C->isListInitialization();
      Arguments(C->arguments(), List ? "" : "(", List ? "" : ")");
      return true;
    }
    if (auto *C = dyn_cast<CXXScalarValueInitExpr>(E)) {
      auto T = C->getTypeSourceInfo() ? respelled(C->getTypeSourceInfo()->getType()) : std::nullopt;
      if (!T)
        return false;
      OS << Names.named(*T, C->getTypeSourceInfo()->getType()) << "()";
      return true;
    }
    if (auto *C = dyn_cast<CStyleCastExpr>(E)) {
      auto T = respelled(C->getTypeAsWritten());
      if (!T)
        return false;
      OS << "(" << *T << ")";
      C->getSubExpr()->printPretty(OS, this, Policy, 0, "\n", &Ctx);
      return true;
    }
    if (auto *C = dyn_cast<CXXNamedCastExpr>(E)) {
      auto T = respelled(C->getTypeAsWritten());
      if (!T)
        return false;
      OS << C->getCastName() << "<" << *T << ">(";
      C->getSubExpr()->printPretty(OS, this, Policy, 0, "\n", &Ctx);
      OS << ")";
      return true;
    }
    return false;
  }

  // A local variable: the declaration printer knows no helper, so its initialiser is printed
  // again with this one, in its place.
  bool declaration(DeclStmt *DS, raw_ostream &OS) {
    // a `static_assert` too: printed without the helper, its names qualified by a type argument
    // are clang's (`const ck::Sequence<1, 4, 8>::At(2)`, CK's copies' `SliceLengths::At`)
    if (auto *SA = dyn_cast<StaticAssertDecl>(DS->getSingleDecl())) {
      OS << "static_assert(";
      SA->getAssertExpr()->printPretty(OS, this, Policy, 0, "\n", &Ctx);
      if (Expr *M = SA->getMessage()) {
        OS << ", ";
        M->printPretty(OS, this, Policy, 0, "\n", &Ctx);
      }
      OS << ");\n";
      return true;
    }
    if (auto *TD = dyn_cast<TypedefNameDecl>(DS->getSingleDecl())) {
      OS << "using " << TD->getName() << " = " << Names.spell(TD->getUnderlyingType()) << ";\n";
      return true;
    }
    auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!VD)
      return false;
    if (auto *DD = dyn_cast<DecompositionDecl>(VD))
      return decomposition(DD, OS);
    std::string Text;
    llvm::raw_string_ostream T(Text);
    VD->print(T, Policy);
    bool Changed = false;
    // the initialiser first: a lambda's, printed, names the functor's class the type is then
    if (VD->getInit()) {
      std::string Plain, Helped;
      llvm::raw_string_ostream P(Plain), H(Helped);
      VD->getInit()->printPretty(P, nullptr, Policy, 0, "\n", &Ctx);
      VD->getInit()->printPretty(H, this, Policy, 0, "\n", &Ctx);
      if (size_t At = Text.rfind(Plain); !Plain.empty() && At != std::string::npos) {
        Text.replace(At, Plain.size(), Helped);
        Changed = true;
      }
    }
    // the written type, when it is a class template's specialization: through its alias
    QualType W = VD->getTypeSourceInfo() ? VD->getTypeSourceInfo()->getType() : VD->getType();
    QualType Bare = W.getLocalUnqualifiedType();
    std::string Written = Bare.getAsString(Policy);
    bool Indirect = StringRef(Written).ends_with("*") || StringRef(Written).ends_with("&");
    if ((aliasedWithin(Bare, Policy) || Names.functorWithin(Bare)) &&
        (!W.hasLocalQualifiers() || W.getLocalQualifiers().hasOnlyConst()))
      if (size_t At = Text.find(Indirect ? Written : Written + " "); At != std::string::npos) {
        Text.replace(At, Written.size(), Names.spell(Bare));
        Changed = true;
      }
    if (!Changed)
      return false;
    OS << Text << ";\n";
    return true;
  }
  // `const auto &[lo, hi] = x;`: the declaration printer writes no bindings (`const auto = x;`).
  // The specifier as written (`printable` made sure it is in the file), the bindings' names, the
  // initialiser through this helper.
  bool decomposition(DecompositionDecl *DD, raw_ostream &OS) {
    const SourceManager &SM = Ctx.getSourceManager();
    StringRef Spec = Lexer::getSourceText(
        CharSourceRange::getCharRange(DD->getBeginLoc(), DD->bindings().front()->getLocation()), SM,
        Ctx.getLangOpts());
    OS << Spec.rtrim().drop_back().rtrim() << " [";
    for (unsigned I = 0; I < DD->bindings().size(); ++I)
      OS << (I ? ", " : "") << DD->bindings()[I]->getName();
    OS << "] = ";
    DD->getInit()->printPretty(OS, this, Policy, 0, "\n", &Ctx);
    OS << ";\n";
    return true;
  }
  // Whether `E` is a class-type template argument's object (`C`, `C.inner`).
  static bool onParameterObject(const Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (auto *S = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
      E = S->getReplacement()->IgnoreParenImpCasts();
    if (auto *D = dyn_cast<DeclRefExpr>(E))
      return isa<TemplateParamObjectDecl>(D->getDecl());
    if (auto *M = dyn_cast<MemberExpr>(E))
      return onParameterObject(M->getBase());
    return false;
  }
  // `C.tile_m()` and `C.waves_n` of a class-type template argument, as their value: clang emits
  // them as constants where the printed `Config{2, 2, 4}.tile_m()` would build a temporary and
  // call, which the optimiser then sees in another order (wgrad_tiny_pos: 1,232 instructions
  // with spills against 1,193 without).
  bool folded(Expr *E, raw_ostream &OS) {
    const Expr *Object = nullptr;
    if (auto *M = dyn_cast<MemberExpr>(E))
      Object = M->getBase();
    else if (auto *C = dyn_cast<CXXMemberCallExpr>(E))
      Object = C->getImplicitObjectArgument();
    QualType T = E->getType();
    Expr::EvalResult R;
    if (!Object || !onParameterObject(Object) || !T->isIntegralOrEnumerationType() || E->isValueDependent() ||
        !E->EvaluateAsInt(R, Ctx))
      return false;
    const llvm::APSInt &V = R.Val.getInt();
    if (T->isBooleanType())
      OS << (V.getBoolValue() ? "true" : "false");
    else if (Ctx.hasSameType(T.getUnqualifiedType(), Ctx.IntTy))
      OS << V;
    else
      OS << "((" << T.getUnqualifiedType().getAsString(Policy) << ")" << V << ")";
    return true;
  }

  bool constexprIf(IfStmt *If, raw_ostream &OS) {
    Expr *Cond = If->getCond();
    bool Value = false;
    if (!Cond->isValueDependent() && Cond->EvaluateAsBooleanCondition(Value, Ctx)) {
      Stmt *Taken = Value ? If->getThen() : If->getElse();
      if (!If->getInit() && Taken && isa<CompoundStmt>(Taken)) {
        print(Taken, OS);
        return true;
      }
      OS << "{\n";
      if (If->getInit())
        print(If->getInit(), OS);
      if (Taken)
        print(Taken, OS);
      OS << "}\n";
      return true;
    }
    if (If->getInit())
      return false;
    OS << "if constexpr (";
    Cond->printPretty(OS, this, Policy, 0, "\n", &Ctx);
    OS << ") ";
    print(If->getThen(), OS);
    if (If->getElse()) {
      OS << "else ";
      print(If->getElse(), OS);
    }
    return true;
  }
  // A name qualified by a class template's specialization, or given template arguments:
  // both through TypeNames (aliases, and class-type values that compile back).
  bool reference(DeclRefExpr *E, raw_ostream &OS) {
    NestedNameSpecifier Q = E->getQualifier();
    bool ByType = Q && Q.getKind() == NestedNameSpecifier::Kind::Type;
    const CXXRecordDecl *Member = Within && !Q ? memberOf(E->getDecl()) : nullptr;
    if (!ByType && !Member && !E->hasExplicitTemplateArgs())
      return false;
    // in a static member's body, a qualifier may be a member type of its class
    // (`ThisThreadBlock::GetThreadId()`): through what it names
    // a qualifier's `const` (a `const Seq` type argument's `L::At(2)`) means nothing, and
    // `const X::At` does not parse
    if (ByType)
      OS << Names.scope((Within ? Q.getAsType()->getCanonicalTypeInternal() : QualType(Q.getAsType(), 0))
                            .getUnqualifiedType());
    else if (Member)
      OS << Names.scope(Ctx.getCanonicalTagType(Member));
    else if (Q)
      Q.print(OS, Policy);
    OS << (E->hasTemplateKeyword() ? "template " : "") << E->getNameInfo();
    if (E->hasExplicitTemplateArgs())
      arguments(E->template_arguments(), OS);
    return true;
  }
  // A member given template arguments through an object (`v.template get_as<T>()`): the
  // arguments through TypeNames too, as a reference's, where clang's printer spells each type in
  // full (ck_tile: a `tile_window_with_static_distribution<...>::DataType` of 4 KB, which
  // tree-sitter cannot parse in an expression). The object is printed through this helper; an
  // implicit `this` or a member of an anonymous struct is left to clang's printer.
  bool memberArguments(MemberExpr *M, raw_ostream &OS) {
    auto *This = dyn_cast<CXXThisExpr>(M->getBase());
    auto *Parent = dyn_cast<MemberExpr>(M->getBase());
    auto *Field = Parent ? dyn_cast<FieldDecl>(Parent->getMemberDecl()) : nullptr;
    if ((This && This->isImplicit()) || (Field && Field->isAnonymousStructOrUnion()))
      return false;
    M->getBase()->printPretty(OS, this, Policy, 0, "\n", &Ctx);
    OS << (M->isArrow() ? "->" : ".");
    memberName(M->getQualifier(), M->hasTemplateKeyword(), M->getMemberNameInfo(), M->hasExplicitTemplateArgs(),
               M->template_arguments(), OS);
    return true;
  }
  // In a non-static member printed as a free function: `this` as the object parameter's address,
  // `*this` as the parameter, and a member named through `this` (written or implicit, resolved
  // or, in a generic lambda, not yet) as the parameter's (`self.m`, `self.template f<2>(x)`).
  bool throughSelf(Stmt *S, raw_ostream &OS) {
    auto IsThis = [](const Expr *E) { return isa<CXXThisExpr>(E->IgnoreParenImpCasts()); };
    if (isa<CXXThisExpr>(S)) {
      OS << "(&" << Self << ")";
      return true;
    }
    if (auto *U = dyn_cast<UnaryOperator>(S); U && U->getOpcode() == UO_Deref && IsThis(U->getSubExpr())) {
      OS << Self;
      return true;
    }
    // `self.template f<2>(x)`: the keyword wherever there are arguments, which a generic
    // lambda's still dependent `self` needs
    auto OfSelf = [&](auto *M) {
      OS << Self << ".";
      memberName(M->getQualifier(), M->hasExplicitTemplateArgs(), M->getMemberNameInfo(), M->hasExplicitTemplateArgs(),
                 M->template_arguments(), OS);
      return true;
    };
    if (auto *M = dyn_cast<MemberExpr>(S); M && IsThis(M->getBase()))
      return OfSelf(M);
    if (auto *M = dyn_cast<UnresolvedMemberExpr>(S); M && (M->isImplicitAccess() || IsThis(M->getBase())))
      return OfSelf(M);
    if (auto *M = dyn_cast<CXXDependentScopeMemberExpr>(S); M && (M->isImplicitAccess() || IsThis(M->getBase())))
      return OfSelf(M);
    return false;
  }
  // What follows a member access's `.` or `->`: qualifier, `template `, name, and its template
  // arguments when it has some.
  void memberName(NestedNameSpecifier Q, bool TemplateKeyword, const DeclarationNameInfo &Name, bool HasArguments,
                  ArrayRef<TemplateArgumentLoc> Arguments, raw_ostream &OS) {
    if (Q)
      Q.print(OS, Policy);
    OS << (TemplateKeyword ? "template " : "") << Name;
    if (HasArguments)
      arguments(Arguments, OS);
  }
  // `<...>`: an expression printed through this helper, any other argument through TypeNames.
  void arguments(ArrayRef<TemplateArgumentLoc> Arguments, raw_ostream &OS) {
    OS << "<";
    bool First = true;
    for (const TemplateArgumentLoc &L : Arguments) {
      OS << (First ? "" : ", ");
      First = false;
      const TemplateArgument &A = L.getArgument();
      if (A.getKind() == TemplateArgument::Expression)
        A.getAsExpr()->printPretty(OS, this, Policy, 0, "\n", &Ctx);
      else
        OS << Names.argument(A);
    }
    OS << ">";
  }
  // The class whose member `D` is (an unscoped enum's enumerator: the class around the enum).
  static const CXXRecordDecl *memberOf(const ValueDecl *D) {
    if (!isa<VarDecl, FunctionDecl, EnumConstantDecl>(D) || D->isLocalExternDecl())
      return nullptr;
    if (auto *V = dyn_cast<VarDecl>(D); V && !V->isStaticDataMember())
      return nullptr;
    const DeclContext *DC = D->getDeclContext();
    if (auto *E = dyn_cast<EnumDecl>(DC); E && !E->isScoped())
      DC = DC->getParent();
    return dyn_cast<CXXRecordDecl>(DC);
  }
  // `#pragma unroll` without a count, which the attribute prints as `#pragma unroll (enable)`.
  // In braces: a directive between a loop's head and its body is a statement tree-sitter cannot
  // parse.
  bool attributed(AttributedStmt *A, raw_ostream &OS) {
    OS << "{\n";
    for (const Attr *At : A->getAttrs()) {
      auto *L = dyn_cast<LoopHintAttr>(At);
      if (L && L->getOption() == LoopHintAttr::Unroll && L->getState() == LoopHintAttr::Enable)
        OS << "#pragma unroll\n";
      else
        At->printPretty(OS, Policy);
    }
    print(A->getSubStmt(), OS);
    OS << "}\n";
    return true;
  }
  // A statement as a statement: an expression gets its `;`.
  void print(Stmt *S, raw_ostream &OS) {
    S->printPretty(OS, this, Policy, 0, "\n", &Ctx);
    if (isa<Expr>(S))
      OS << ";\n";
  }
  ASTContext &Ctx;
  PrintingPolicy Policy;
  TypeNames &Names;
  const CXXRecordDecl *Within;
  std::string Self;
};

// The value of an attribute's argument, evaluated in the instantiation.
static std::optional<std::string> evaluated(ASTContext &Ctx, const Expr *E) {
  if (!E)
    return std::nullopt;
  Expr::EvalResult R;
  if (E->isValueDependent() || !E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  return llvm::toString(R.Val.getInt(), 10);
}

// The attributes the instantiation holds that decide its code: `__global__` and the launch
// bounds (the HIP macro's, and the AMDGPU ones). Nullopt: one of them could not be evaluated.
static std::optional<std::string> kernelAttributes(ASTContext &Ctx, const FunctionDecl *FD) {
  std::string Out = "__attribute__((global))";
  for (const Attr *A : FD->attrs()) {
    std::vector<const Expr *> Args;
    std::string Name;
    if (auto *L = dyn_cast<CUDALaunchBoundsAttr>(A)) {
      Name = "launch_bounds";
      Args = {L->getMaxThreads(), L->getMinBlocks()};
      if (L->getMaxBlocks())
        Args.push_back(L->getMaxBlocks());
    } else if (auto *W = dyn_cast<AMDGPUFlatWorkGroupSizeAttr>(A)) {
      Name = "amdgpu_flat_work_group_size";
      Args = {W->getMin(), W->getMax()};
    } else if (auto *W = dyn_cast<AMDGPUWavesPerEUAttr>(A)) {
      Name = "amdgpu_waves_per_eu";
      Args = {W->getMin(), W->getMax()};
    } else
      continue;
    while (!Args.empty() && !Args.back())
      Args.pop_back();
    // the pattern's own copy, which the instantiation keeps next to its evaluated one
    if (std::any_of(Args.begin(), Args.end(), [](const Expr *E) { return E && E->isValueDependent(); }))
      continue;
    std::string List;
    for (const Expr *E : Args) {
      auto V = evaluated(Ctx, E);
      if (!V)
        return std::nullopt;
      List += (List.empty() ? "" : ", ") + *V;
    }
    std::string Printed = " __attribute__((" + Name + "(" + List + ")))";
    if (Out.find(Printed) == std::string::npos)  // the pattern's copy of an attribute that depends on nothing
      Out += Printed;
  }
  return Out;
}

// Types fully qualified, so that an alias means the same in any namespace; a name in an unnamed
// namespace without it (`lib::dev::Tag`, which qualified lookup finds through the namespace's
// implicit using-directive, where `lib::dev::(anonymous namespace)::Tag` names nothing).
static PrintingPolicy plainPolicy(ASTContext &Ctx) {
  PrintingPolicy Policy = Ctx.getPrintingPolicy();
  Policy.AnonymousTagLocations = false;
  Policy.SuppressImplicitBase = true;
  Policy.FullyQualifiedName = true;
  Policy.SuppressUnwrittenScope = true;
  return Policy;
}

// What in a body the printer cannot print so that it compiles: a structured binding the helper
// does not print (`PlainHelper::decomposition`: a range-for's, which the statement printer prints
// itself, one initialised otherwise than with `=`, or whose specifier is not written in the
// file), and a generic lambda with a parameter pack, which clang prints `[&](auto &&zs...)`
// (composable_kernel's `concat_tuple_of_reference`).
class Unprintable : public RecursiveASTVisitor<Unprintable> {
public:
  explicit Unprintable(const SourceManager &SM) : SM(SM) {}
  bool VisitCXXForRangeStmt(CXXForRangeStmt *S) {
    Found |= isa_and_nonnull<DecompositionDecl>(S->getLoopVariable());
    return !Found;
  }
  bool VisitDecompositionDecl(DecompositionDecl *D) {
    Found |= D->getInitStyle() != VarDecl::CInit || D->getBeginLoc().isMacroID() || D->bindings().empty() ||
             !SM.isWrittenInMainFile(D->getBeginLoc());
    return !Found;
  }
  bool VisitLambdaExpr(LambdaExpr *E) {
    const FunctionDecl *Call = E->getCallOperator();
    Found |= std::any_of(Call->param_begin(), Call->param_end(),
                         [](const ParmVarDecl *P) { return P->isParameterPack(); });
    return !Found;
  }
  bool Found = false;

private:
  const SourceManager &SM;
};

// Whether `FD` is an instantiation this can print: a template's, with a body, without a lambda
// with a parameter pack in its body. A pack of its own parameters is printed as the parameters
// it expanded to, each under the pack's name: only when no two parameters then share a name (a
// pack of one: ck_tile's `kentry(Args... args)`, called with its kernel's arguments).
static bool printable(const FunctionDecl *FD) {
  if (!FD->isTemplateInstantiation() || !FD->getBody() || FD->isVariadic())
    return false;
  Unprintable Body(FD->getASTContext().getSourceManager());
  Body.TraverseStmt(FD->getBody());
  if (Body.Found || !FD->getTemplateInstantiationPattern())
    return false;
  std::set<StringRef> Names;
  return std::all_of(FD->param_begin(), FD->param_end(),
                     [&](const ParmVarDecl *P) { return P->getName().empty() || Names.insert(P->getName()).second; });
}

// The plain definition of kernel instantiation `FD`, or nullopt when it is not one this can
// print: not an instantiation, a parameter pack, an attribute whose value is unknown.
static std::optional<Definition> plainDefinition(ASTContext &Ctx, const FunctionDecl *FD, unsigned &Next,
                                                 unsigned &NextClosure, SeenAliases Visible, LevelAliases &Level,
                                                 const Place &Here) {
  if (!printable(FD) || !FD->getReturnType()->isVoidType())
    return std::nullopt;
  auto Attributes = kernelAttributes(Ctx, FD);
  if (!Attributes)
    return std::nullopt;
  PrintingPolicy Policy = plainPolicy(Ctx);
  TypeNames Names(Ctx, Policy, Next, NextClosure, std::move(Visible), Level, Here);
  // an instantiation has vague linkage, and so have its static locals (`__shared__` arrays):
  // `inline` keeps it, where a plain definition would make them internal and change the code
  std::string Head = (FD->isExternallyVisible() ? "inline " : "") + *Attributes + " void ";
  std::string Rest = PlainHelper(Ctx, Policy, Names).rest(FD, FD->getName());
  return Definition{Names.Declarations + Names.Functors + Head + Rest, Names.levelAliases(), Names.moves()};
}

// A closure's type has no name to print (a pipeline's `operator()` given the element-wise lambdas of
// the overload that calls it).
static bool closure(QualType T) {
  T = T.getNonReferenceType();
  while (T->isPointerType())
    T = T->getPointeeType();
  auto *R = T->getAsCXXRecordDecl();
  return R && R->isLambda();
}

// Whether `calleeDefinition` prints `FD`: decided before anything is printed, since the
// definitions of a level share the aliases each declares.
static bool calleePrintable(const FunctionDecl *FD) {
  QualType R = calleeReturnType(FD);
  return printable(FD) && !R.isNull() && !closure(R) &&
         std::none_of(FD->param_begin(), FD->param_end(), [](const ParmVarDecl *P) { return closure(P->getType()); });
}

// The plain definition, named `Name`, of `FD` (`calleePrintable`): a function template's
// instantiation on a plain kernel's call path, a free function or a static member (then a free
// function too). The same repairs as a kernel's, and its own attributes that decide the code
// (`__device__`, inlining). `Rvalue`: a non-const member's object parameter is `&&` (its calls are
// on temporaries).
static Definition calleeDefinition(ASTContext &Ctx, const FunctionDecl *FD, StringRef Name, bool Rvalue, unsigned &Next,
                                   unsigned &NextClosure, SeenAliases Visible, LevelAliases &Level, const Place &Here) {
  PrintingPolicy Policy = plainPolicy(Ctx);
  TypeNames Names(Ctx, Policy, Next, NextClosure, std::move(Visible), Level, Here);
  QualType R = calleeReturnType(FD);
  std::string Head;
  llvm::raw_string_ostream OS(Head);
  // vague linkage, as the instantiation has (`static` when it had none)
  OS << (FD->isExternallyVisible() ? "inline " : "static inline ") << specifiers(Ctx, FD, R);
  printType(R, "", Names, Policy, OS);
  OS << " ";
  auto *M = dyn_cast<CXXMethodDecl>(FD);
  std::string Self;
  if (M && M->isInstance()) {
    // the object parameter's name: `self`, unless the template's text already has one
    const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
    StringRef Written = Lexer::getSourceText(CharSourceRange::getTokenRange(Pattern->getSourceRange()),
                                             Ctx.getSourceManager(), Ctx.getLangOpts());
    for (Self = "self"; Written.contains(Self);)
      Self += "_";
  }
  std::string Object;
  if (!Self.empty())
    Object = (M->isConst() ? "const " : "") + Names.spell(Ctx.getCanonicalTagType(M->getParent())) +
             (Rvalue ? " &&" : " &") + Self;
  std::string Rest = PlainHelper(Ctx, Policy, Names, M ? M->getParent() : nullptr, Self).rest(FD, Name, Object);
  return Definition{Names.Declarations + Names.Functors + Head + Rest, Names.levelAliases(), Names.moves()};
}

// What a free function could not do that a member does. Name a member of a class that is not
// public (the transfers' coordinates sit under `private:`): that class is `Closed`, and the
// member's item makes its members public (`opening`); through a base that is not public (a
// conversion to it, which the free function could not make: the base specifiers stay as they
// are); or capture `this` other than implicitly by reference (`[this]`, `[=]`, `[*this]`: not
// `self` then). A member whose body does either of the last two stays a template.
class MemberOnly : public RecursiveASTVisitor<MemberOnly> {
public:
  bool VisitMemberExpr(MemberExpr *E) { return name(E->getFoundDecl().getDecl()); }
  bool VisitDeclRefExpr(DeclRefExpr *E) { return name(E->getFoundDecl()); }
  bool VisitOverloadExpr(OverloadExpr *E) {
    for (auto I = E->decls_begin(); I != E->decls_end(); ++I)
      name(*I);
    return Why.empty();
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) { return name(E->getConstructor()); }
  bool VisitTypedefTypeLoc(TypedefTypeLoc TL) { return name(TL.getTypePtr()->getDecl()); }
  bool VisitTagTypeLoc(TagTypeLoc TL) { return name(TL.getDecl()); }
  bool VisitCastExpr(CastExpr *E) {
    CastKind K = E->getCastKind();
    if (K == CK_DerivedToBase || K == CK_UncheckedDerivedToBase || K == CK_BaseToDerived)
      for (const CXXBaseSpecifier *B : E->path())
        if (B->getAccessSpecifier() != AS_public && Why.empty())
          Why = "it converts to a base that is not public (`" + B->getType().getAsString() + "`)";
    return Why.empty();
  }
  bool VisitLambdaExpr(LambdaExpr *E) {
    for (const LambdaCapture &C : E->captures())
      if (C.capturesThis() && (!C.isImplicit() || C.getCaptureKind() != LCK_This ||
                               E->getCaptureDefault() != LCD_ByRef))
        Why = "a lambda captures `this` otherwise than implicitly by reference";
    return Why.empty();
  }
  std::string Why;  // empty: nothing a free function could not do once `Closed` is opened
  // each class (as instantiated) a member of which the body names and is not public: the first
  // such member, `Cls::m`
  std::map<const CXXRecordDecl *, std::string> Closed;

private:
  bool name(const NamedDecl *D) {
    auto *RD = D ? dyn_cast<CXXRecordDecl>(D->getDeclContext()) : nullptr;
    if (RD && !RD->isLambda() && (D->getAccess() == AS_private || D->getAccess() == AS_protected))
      Closed.insert({RD, RD->getNameAsString() + "::" + D->getNameAsString()});
    return Why.empty();
  }
};

// Why member `M` (an instantiation) cannot be printed as a free function; empty: it can, once
// the classes in `Closed` are opened. A non-static one must be neither virtual nor `volatile`
// nor ref-qualified. Its own access does not matter: every call to it becomes the free
// function's.
static std::string unfreeable(const CXXMethodDecl *M, std::map<const CXXRecordDecl *, std::string> &Closed) {
  if (M->getParent()->isLambda())
    return "a lambda's call operator";
  if (M->isInstance() && (M->isVirtual() || M->isVolatile() || M->getRefQualifier() != RQ_None))
    return "a virtual, volatile or ref-qualified member";
  MemberOnly Check;
  Check.TraverseStmt(M->getBody());
  Closed.insert(Check.Closed.begin(), Check.Closed.end());
  return Check.Why;
}

// The edits that make the members of class `RD` (an instantiation, or a class as written)
// public, on the text it was instantiated from: each `private:` / `protected:` directly in its
// body becomes `public:`, and a `class` whose first member comes before any access specifier
// gets `public:` after its `{` (the `{` rewritten, so that two items opening one class make the
// same edit: edits.apply keeps one). The Itanium ABI lays fields out in declaration order
// whatever their access, with one exception: a class POD in C++03's sense keeps its tail padding
// from a derived class's members, and fields that are not public are what make a trivial class
// without a user-provided constructor not POD; such a class is not opened when it has tail
// padding (without, a derived class's members go after it either way: CK's tile map). The candidate is tested like any other. Nullopt, with
// `Why`, when the class is one of those or its text is not the file's own (a system header's
// class, a macro's specifier).
std::optional<std::vector<std::tuple<unsigned, unsigned, std::string>>>
Footprint::opening(const CXXRecordDecl *RD, std::string &Why) {
  const CXXRecordDecl *P = RD->getTemplateInstantiationPattern();
  P = P ? P : RD->getDefinition();
  Why = "in a class whose access is not spelled in the file";
  if (!P || !Main.plain(P->getBraceRange()))
    return std::nullopt;
  auto Brace = Main.offset(P->getBraceRange().getBegin());
  if (!Brace || Main.Text[*Brace] != '{')
    return std::nullopt;
  const CXXRecordDecl *Def = RD->getDefinition();
  if (Def && Def->isTrivial() && !Def->isPOD() && Def->getNumBases() == 0 && !Def->isPolymorphic() &&
      std::none_of(Def->ctor_begin(), Def->ctor_end(), [](const CXXConstructorDecl *C) { return C->isUserProvided(); }) &&
      std::any_of(Def->field_begin(), Def->field_end(), [](const FieldDecl *F) { return F->getAccess() != AS_public; }) &&
      (Def->isDependentType() || Ctx.getASTRecordLayout(Def).getDataSize() != Ctx.getASTRecordLayout(Def).getSize())) {
    Why = "in a trivial class with tail padding that made public would be POD (a derived class's layout could change)";
    return std::nullopt;
  }
  std::vector<std::tuple<unsigned, unsigned, std::string>> Out;
  bool First = true;
  for (const Decl *D : P->decls()) {
    if (D->isImplicit())
      continue;
    auto *A = dyn_cast<AccessSpecDecl>(D);
    if (First && !A && P->isClass())
      Out.push_back({*Brace, *Brace + 1, "{public:"});
    First = false;
    if (!A || A->getAccess() == AS_public)
      continue;
    auto Span = Main.plain(A->getSourceRange()) ? Main.span(A->getSourceRange(), false) : std::nullopt;
    if (!Span)
      return std::nullopt;
    Out.push_back({Span->Begin, Span->End, "public:"});
  }
  return Out;
}

// The namespaces around `DC`, outermost first (an unnamed one as ""); nullopt when something
// else is around it (a class, a function).
static std::optional<std::vector<std::string>> namespacesOf(const DeclContext *DC) {
  std::vector<std::string> Out;
  for (; !DC->isTranslationUnit(); DC = DC->getParent()) {
    if (auto *N = dyn_cast<NamespaceDecl>(DC))
      Out.insert(Out.begin(), N->getName().str());
    else if (!isa<LinkageSpecDecl>(DC))
      return std::nullopt;
  }
  return Out;
}

// The declarations named `__plain_tN` (one visit of the translation unit).
class PlainNames : public RecursiveASTVisitor<PlainNames> {
public:
  bool VisitNamedDecl(NamedDecl *D) {
    StringRef N = D->getIdentifier() ? D->getName() : "";
    if (N.consume_front("__plain_t") && !N.empty() && std::all_of(N.begin(), N.end(), isDigit))
      Found.push_back(D);
    return true;
  }
  std::vector<const NamedDecl *> Found;
};

// The aliases earlier footprints printed that the file still has (`using __plain_t3 = ...;`,
// `typedef float __plain_t4 __attribute__((ext_vector_type(4)));`) at namespace scope, written in
// the file; a name declared twice (a local, another namespace's) is none, since a use could
// find the other.
void Footprint::fileAliases() {
  PlainNames All;
  All.TraverseDecl(Ctx.getTranslationUnitDecl());
  std::map<std::string, int> Declared;
  for (const NamedDecl *D : All.Found)
    ++Declared[D->getName().str()];
  std::set<const Decl *> Hoistable;
  for (const NamedDecl *D : All.Found) {
    auto *TD = dyn_cast<TypedefNameDecl>(D);
    if (!TD || Declared[TD->getName().str()] != 1 || !TD->getDeclContext()->getRedeclContext()->isFileContext() ||
        !Main.plain(TD->getSourceRange()))
      continue;
    auto Where = Main.span(TD->getSourceRange(), true);
    auto Namespaces = namespacesOf(TD->getDeclContext());
    if (!Where || !Namespaces)
      continue;
    unsigned End = Main.declarationEnd(Where->End);
    auto Hoist = hoist(TD, Hoistable);
    // what it names must be seen at file scope there: an alias that moves too, or one declared
    // at file scope before
    for (const std::string &N : aliasNames(Main.Text.substr(Where->Begin, End - Where->Begin)))
      if (Hoist && N != TD->getName() &&
          std::none_of(Aliases.begin(), Aliases.end(), [&](const FileAlias &A) {
            return A.Name == N && (A.Hoist || (A.Namespaces.empty() && A.End <= *Hoist));
          }))
        Hoist.reset();
    if (Hoist)
      Hoistable.insert(TD);
    Aliases.push_back({Ctx.getCanonicalType(TD->getUnderlyingType()), TD->getName().str(), Where->Begin, End,
                       *Namespaces, Hoist});
  }
}

// Where alias `TD` may move to: the start of the block of namespaces it stands in, at file
// scope, when nothing but the block's namespace openings and aliases that may move too
// (`Hoistable`) comes before it in the block (a plain kernel's printed block: `namespace ck {
// namespace tensor_operation { ... using __plain_t5 = ...;`). A callee of the kernel, in `ck`,
// goes inside the block before those aliases, where it sees them only so moved; moved, they
// name what they named, all declared before the block (printed fully qualified), and whatever
// named them still sees them.
std::optional<unsigned> Footprint::hoist(const TypedefNameDecl *TD, const std::set<const Decl *> &Hoistable) const {
  const Decl *Inner = TD;
  for (const DeclContext *DC = TD->getLexicalDeclContext(); !DC->isTranslationUnit(); DC = DC->getLexicalParent()) {
    auto *N = dyn_cast<NamespaceDecl>(DC);
    if (!N)
      return std::nullopt;
    for (const Decl *D : N->decls()) {
      if (D == Inner)
        break;
      if (!D->isImplicit() && !Hoistable.count(D))
        return std::nullopt;
    }
    Inner = N;
  }
  auto *Top = dyn_cast<NamespaceDecl>(Inner);
  return Top && Main.plain(Top->getSourceRange()) ? Main.offset(Top->getBeginLoc()) : std::nullopt;
}

// The file's aliases a definition sees when it is put at offset `At`, outside any declaration,
// inside `Namespaces` reopened: those declared before, in the same namespaces or enclosing ones
// (the first, when two name one type); then those it would see once moved (`hoist`).
SeenAliases Footprint::visibleAliases(unsigned At, const std::vector<std::string> &Namespaces) const {
  SeenAliases Out;
  for (const FileAlias &A : Aliases)
    if (A.End <= At && A.Namespaces.size() <= Namespaces.size() &&
        std::equal(A.Namespaces.begin(), A.Namespaces.end(), Namespaces.begin()) &&
        Out.ByType.try_emplace(A.Type, A.Name).second)
      Out.Within[A.Name] = A.Namespaces;
  for (const FileAlias &A : Aliases)
    if (A.Hoist && *A.Hoist <= At && Out.ByType.try_emplace(A.Type, A.Name).second)
      Out.Moving.insert(A.Name);
  return Out;
}

// The names of the aliases definition `D` needs declared before it, in the order to declare
// them: the file's aliases it moves, with those they name, in the file's order, then the
// level's it names.
llvm::json::Array Footprint::definitionAliases(const Definition &D) {
  std::set<std::string> Moves = D.Moves;
  std::vector<const FileAlias *> Moved;
  for (auto It = Aliases.rbegin(); It != Aliases.rend(); ++It)  // an alias names those before it
    if (Moves.count(It->Name)) {
      Moved.insert(Moved.begin(), &*It);
      for (const std::string &N : aliasNames(Main.Text.substr(It->Begin, It->End - It->Begin)))
        if (N != It->Name && std::any_of(Aliases.begin(), Aliases.end(),
                                         [&](const FileAlias &A) { return A.Name == N && A.Hoist; }))
          Moves.insert(N);
    }
  llvm::json::Array Out;
  for (const FileAlias *A : Moved) {
    MovedAliases.insert(A->Name);
    Out.push_back(A->Name);
  }
  for (unsigned I : D.Aliases)
    Out.push_back(Level.All[I].Name);
  return Out;
}

// Each target kernel instantiated from a template that no other target shares, as a plain
// definition: the byte range of the template's body (a candidate replaces it by `;`, so the
// instantiation is no longer emitted and the launcher still compiles), the namespaces to
// reopen at the end of the file, where every type its signature names is complete.
llvm::json::Array Footprint::plainKernels() {
  llvm::json::Array Out;
  std::map<const FunctionDecl *, int> Shared;
  for (const FunctionDecl *K : Targets)
    if (auto *P = K->getTemplateInstantiationPattern())
      ++Shared[P];
  for (const FunctionDecl *K : Targets) {
    const FunctionDecl *Pattern = K->getTemplateInstantiationPattern();
    if (!Pattern || Shared[Pattern] != 1 || !Pattern->getBody())
      continue;
    SourceRange Body = Pattern->getBody()->getSourceRange();
    auto Span = Main.plain(Body) ? Main.span(Body, false) : std::nullopt;
    auto Namespaces = namespacesOf(K->getDeclContext());
    if (!Span || !Namespaces)
      continue;
    auto Printed = plainDefinition(Ctx, K, NextAlias, NextClosure, visibleAliases(Main.size(), *Namespaces), Level,
                                   Place{Main.size(), *Namespaces, 0});
    if (!Printed)
      continue;
    Out.push_back(llvm::json::Object{{"kernel", ASTNameGenerator(Ctx).getName(K)},
                                     {"name", K->getName()},
                                     {"body", llvm::json::Array{Span->Begin, Span->End}},
                                     {"namespaces", llvm::json::Array(*Namespaces)},
                                     {"aliases", definitionAliases(*Printed)},
                                     {"text", Printed->Text}});
  }
  return Out;
}

// The functions a body names (calls, addresses, operators, constructors); a reference by name
// or through an object (`pipeline.template Run<false>`) comes with its expression, which a
// plain caller's text may rewrite.
class Callees : public RecursiveASTVisitor<Callees> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (auto *FD = dyn_cast<FunctionDecl>(E->getDecl()))
      Found.push_back({FD, E});
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    if (auto *FD = dyn_cast<FunctionDecl>(E->getMemberDecl()))
      Found.push_back({FD, E});
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    Found.push_back({E->getConstructor(), nullptr});
    return true;
  }
  bool VisitCallExpr(CallExpr *E) {
    if (auto *M = dyn_cast<MemberExpr>(E->getCallee()->IgnoreParens()))
      Calls[M] = E;
    if (auto *O = dyn_cast<CXXOperatorCallExpr>(E))
      if (auto *R = dyn_cast<DeclRefExpr>(O->getCallee()->IgnoreParenImpCasts()))
        Calls[R] = E;
    return true;
  }
  std::vector<std::pair<const FunctionDecl *, const Expr *>> Found;
  // a member called: its call (`obj.f(a)`'s MemberExpr, or an operator's reference, `obj(a)`'s
  // `operator()`, `a[i]`'s `operator[]`, `a + b`'s `operator+`)
  std::map<const Expr *, const CallExpr *> Calls;
};

// Every expression in the translation unit that names a specialization of one of `Patterns`,
// instantiations included: the walk from the kernels sees the bodies it reaches only, and a
// specialization is also named where no reached body is (a static data member's initialiser, a
// default member initialiser, a member's type: CK's `StaticBufferTupleOfVector<...,
// xdlops_gemm.GetRegSizePerXdlops(), ...>`), and another one by code the kernels never reach
// (CK's `make_naive_tensor_descriptor_packed` in a class template's static member).
class Mentions : public RecursiveASTVisitor<Mentions> {
public:
  explicit Mentions(const std::set<const FunctionDecl *> &Patterns) : Patterns(Patterns) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitDeclRefExpr(DeclRefExpr *E) { return note(E->getDecl(), E); }
  bool VisitMemberExpr(MemberExpr *E) { return note(E->getMemberDecl(), E); }
  std::map<const FunctionDecl *, std::set<const Expr *>> Found;  // pattern -> expressions

private:
  bool note(const Decl *D, const Expr *E) {
    if (auto *FD = dyn_cast<FunctionDecl>(D))
      if (const FunctionDecl *P = FD->getTemplateInstantiationPattern(); P && Patterns.count(P->getCanonicalDecl()))
        Found[P->getCanonicalDecl()].insert(E);
    return true;
  }
  const std::set<const FunctionDecl *> &Patterns;
};

static const char *NoIdentifier = "its name is no identifier (a conversion, a constructor, `->`, `new`)";

// An operator's name as words for its printed function's name (`+=`: `operator_plus_eq`, `[]`:
// `operator_index`), empty for those not printed so: `()` (an object's call, printed as `call`),
// `->`, `new` and `delete`, `co_await`, a conversion.
static std::string operatorWord(OverloadedOperatorKind K) {
  if (K == OO_None || K == OO_Call || K == OO_Arrow || K == OO_ArrowStar || K == OO_New || K == OO_Delete ||
      K == OO_Array_New || K == OO_Array_Delete || K == OO_Coawait || K == OO_Conditional)
    return "";
  if (K == OO_Subscript)
    return "operator_index";
  static const std::map<char, const char *> Words{
      {'+', "plus"}, {'-', "minus"}, {'*', "star"}, {'/', "slash"}, {'%', "percent"}, {'^', "caret"},
      {'&', "amp"},  {'|', "pipe"},  {'~', "tilde"}, {'!', "not"},  {'=', "eq"},      {'<', "lt"},
      {'>', "gt"},   {',', "comma"}};
  std::string Out = "operator";
  for (char C : StringRef(getOperatorSpelling(K)))
    if (auto It = Words.find(C); It != Words.end())
      Out += std::string("_") + It->second;
  return Out;
}

// Whether an object is a temporary: a prvalue, or one materialized for the call (an lvalue then,
// where the implicit object parameter is one: `Partitioner{}()`).
static bool temporary(const Expr *E) {
  E = E->IgnoreParens();
  return !E->isLValue() || isa<MaterializeTemporaryExpr>(E);
}

// Whether `F` is plain code: neither an instantiation nor a pattern. A generic lambda's call
// operator instantiated in plain code counts as its text: every instantiation shares it.
static bool plainCode(const FunctionDecl *F) {
  for (auto *M = dyn_cast<CXXMethodDecl>(F); M && M->getParent()->isLambda() && M->isTemplateInstantiation();
       M = dyn_cast<CXXMethodDecl>(F)) {
    F = dyn_cast<FunctionDecl>(M->getParent()->getDeclContext());
    if (!F)
      return false;
  }
  return !F->isTemplateInstantiation() && !F->isDependentContext();
}

// The function templates and the members of class templates on the call path of the kept
// kernels whose every specialization reached from them is named only by plain code (not an
// instantiation: a plain kernel, a callee printed before, a generic lambda in one), by name or
// through an object: each specialization printed as a plain function under a fresh name
// (`__plain_f`, or `__plain_f_1`, `__plain_f_2` for several argument lists), to put before the
// declaration around its first caller that stands at file scope or directly in the innermost
// block of the template's namespaces around the caller (those not open there reopened), after
// the aliases printed before it, which it uses; the references with their replacement, and
// the template's body, which becomes `;`. A static member named through an object takes the
// object with it, so the object's evaluation must do nothing. A non-static member becomes a free
// function of its object (`__plain_Run(Cls &self, ...)`), its calls `obj.Run(a)` / `p->Run(a)`
// rewritten to `__plain_Run(obj, a)` / `__plain_Run(*p, a)`, when the object's evaluation does
// nothing (`unfreeable`); the classes whose members its body names and are not public are
// opened in the same item (`opens`: their `private:` made `public:`), when the file spells
// them. One level a footprint: the printed callee is plain code for the next one.
llvm::json::Array Footprint::plainCallees() {
  struct Use {
    const Expr *E;
    const FunctionDecl *In;
    const CallExpr *Call;  // a member's call, when `E` is its callee
  };
  std::map<const FunctionDecl *, std::vector<Use>> Uses;                      // specialization -> references
  std::map<const FunctionDecl *, std::set<const FunctionDecl *>> Instances;  // pattern -> specializations
  std::deque<const FunctionDecl *> Work;
  llvm::DenseSet<const FunctionDecl *> Seen;
  auto push = [&](const FunctionDecl *F) {
    const FunctionDecl *Def = nullptr;
    if (F->hasBody(Def) && Seen.insert(Def).second)
      Work.push_back(Def);
  };
  for (const FunctionDecl *K : Targets)
    push(K);
  while (!Work.empty()) {
    const FunctionDecl *F = Work.front();
    Work.pop_front();
    Callees C;
    C.TraverseStmt(F->getBody());
    for (auto [G, E] : C.Found) {
      if (G->getPrimaryTemplate() || (isa<CXXMethodDecl>(G) && G->getInstantiatedFromMemberFunction()))
        if (const FunctionDecl *P = G->getTemplateInstantiationPattern()) {
          Instances[P->getCanonicalDecl()].insert(G->getCanonicalDecl());
          auto Call = C.Calls.find(E);
          Uses[G->getCanonicalDecl()].push_back({E, F, Call == C.Calls.end() ? nullptr : Call->second});
        }
      push(G);
    }
  }
  // in the file's order, so that a file gets the same names and items every time
  std::vector<std::pair<unsigned, const FunctionDecl *>> Patterns;
  std::set<const FunctionDecl *> Called;
  for (auto &[Pattern, Specializations] : Instances) {
    Patterns.push_back({Main.offset(Pattern->getLocation()).value_or(0), Pattern});
    Called.insert(Pattern);
  }
  std::sort(Patterns.begin(), Patterns.end());
  Mentions Named(Called);
  Named.TraverseDecl(Ctx.getTranslationUnitDecl());
  // each specialization: every reference to it, in plain code and written in the file, with
  // what follows the fresh name (a non-static member's call: `(object, `), and where its
  // definition goes (before its callers, after the template, so after all it names)
  struct Ref {
    unsigned Begin, End;
    std::string Then;
  };
  struct Printed {
    const FunctionDecl *S;
    std::vector<Ref> Refs;
    unsigned First, At, Open;  // `Open`: how many of its namespaces are open at `At`
    std::set<std::tuple<unsigned, unsigned, std::string>> Opens;  // what makes the classes it names public
    std::string Fresh;  // its fresh name
    bool Rvalue;        // a non-const member called on temporaries only: its object parameter is `&&`
    Definition Text;
  };
  // a template whose specializations are printed: one item
  struct Template {
    const FunctionDecl *Pattern;
    std::pair<unsigned, unsigned> Body;
    std::vector<std::string> Namespaces;
    std::vector<Printed> Specs;
  };
  std::vector<Template> Templates;
  std::set<std::string> Taken;
  // why a template plain code calls stays one (`kept`, for whoever measures where the chain stops)
  auto keep = [&](const FunctionDecl *P, const std::string &Why) {
    bool Called = std::any_of(Instances[P].begin(), Instances[P].end(), [&](const FunctionDecl *S) {
      return std::any_of(Uses[S].begin(), Uses[S].end(), [](const Use &U) { return plainCode(U.In); });
    });
    if (Called)
      Kept.push_back(llvm::json::Object{{"name", P->getQualifiedNameAsString()}, {"why", Why}});
  };
  for (auto [Offset, P] : Patterns) {
    auto *PM = dyn_cast<CXXMethodDecl>(P);
    bool CallOperator = P->getOverloadedOperator() == OO_Call && !(PM && PM->getParent()->isLambda());
    std::string OperatorName = operatorWord(P->getOverloadedOperator());
    bool Operator = !OperatorName.empty() && !(PM && PM->getParent()->isLambda());
    if (!P->getBody() || !(P->getDeclName().isIdentifier() || CallOperator || Operator) ||
        P->hasAttr<CUDAGlobalAttr>() || (PM && P->isOutOfLine()) || !Main.plain(P->getBody()->getSourceRange())) {
      keep(P, !P->getDeclName().isIdentifier() && !CallOperator && !Operator
               ? NoIdentifier
           : PM && P->isOutOfLine()         ? "defined outside its class"
                                            : "no body written in the file");
      continue;
    }
    // a class's call operator with only `auto` parameters for a template's (a generic lambda's
    // functor, printed once for its instantiations, `oneCallOperator`): printed per
    // specialization it would be the copies the functor was printed to avoid
    if (auto *FT = P->getDescribedFunctionTemplate(); FT && CallOperator && !PM->getParent()->isTemplated() &&
        std::all_of(FT->getTemplateParameters()->begin(), FT->getTemplateParameters()->end(),
                    [](const NamedDecl *D) { return D->isImplicit(); })) {
      keep(P, "a call operator with `auto` parameters, printed once for all its instantiations");
      continue;
    }
    auto Body = Main.span(P->getBody()->getSourceRange(), false);
    auto Namespaces = namespacesOf(PM ? PM->getParent()->getDeclContext() : P->getDeclContext());
    if (!Body || !Namespaces ||
        std::any_of(Namespaces->begin(), Namespaces->end(), [](const std::string &N) { return N.empty(); })) {
      keep(P, "not in named namespaces");
      continue;
    }
    std::vector<Printed> Specs;
    std::map<std::pair<unsigned, unsigned>, const FunctionDecl *> Owner;  // a reference's text -> its specialization
    std::string Why;
    // named nowhere the walk did not see, with no argument list it did not reach
    std::set<const Expr *> Walked;
    for (const FunctionDecl *S : Instances[P])
      for (const Use &U : Uses[S])
        Walked.insert(U.E);
    if (std::any_of(Named.Found[P].begin(), Named.Found[P].end(), [&](const Expr *E) { return !Walked.count(E); }))
      Why = "named where no reached body is (an initialiser, a type, code the kernels do not reach)";
    for (auto It = Instances[P].begin(); Why.empty() && It != Instances[P].end(); ++It) {
      const FunctionDecl *S = *It;
      Printed Pr{S, {}, ~0u, ~0u, 0, {}, "", false, {}};
      const FunctionDecl *Def = nullptr;
      auto *SM = dyn_cast<CXXMethodDecl>(S);
      if (!S->hasBody(Def)) {
        Why = "no body";
        break;
      }
      std::map<const CXXRecordDecl *, std::string> Closed;
      if (SM && !(Why = unfreeable(cast<CXXMethodDecl>(Def), Closed)).empty())
        break;
      for (auto &[Class, Member] : Closed) {
        std::string Not;
        auto Edits = opening(Class, Not);
        if (!Edits) {
          Why = "its body names `" + Member + "`, which is not public, " + Not;
          break;
        }
        Pr.Opens.insert(Edits->begin(), Edits->end());
      }
      if (!Why.empty())
        break;
      // a non-const member called on temporaries only (`Partitioner{}()`) takes its object by
      // `&&`; called on both, it stays a member
      if (SM && SM->isInstance() && !SM->isConst()) {
        auto onTemporary = [](const Use &U) {
          if (auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(U.Call))
            return temporary(Op->getArg(0));
          auto *ME = dyn_cast_or_null<MemberExpr>(U.E);
          return ME && !ME->isArrow() && temporary(ME->getBase());
        };
        unsigned Temporaries = std::count_if(Uses[S].begin(), Uses[S].end(), onTemporary);
        Pr.Rvalue = Temporaries && Temporaries == Uses[S].size();
        if (Temporaries && !Pr.Rvalue) {
          Why = "called on a temporary and on an object";
          break;
        }
      }
      for (const Use &U : Uses[S]) {
        // `obj(a)`: the reference is the object's text, then the call's `(`; `a[i]`, `a + b`,
        // `-a`: the whole expression, written again as a call
        auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(U.Call);
        bool Whole = Op && Op->getOperator() != OO_Call;
        SourceRange R = Whole ? Op->getSourceRange()
                        : Op  ? Op->getArg(0)->getSourceRange()
                        : U.E ? U.E->getSourceRange()
                              : SourceRange();
        auto Span = Main.plain(R) ? Main.span(R, false) : std::nullopt;
        // inside the function's own text: not a type's argument it only spells (`auto`'s deduced
        // type holds the class's member types with the expressions their arguments were)
        auto Within = Main.span(U.In->getSourceRange(), false);
        if (Span && (!Within || Span->Begin < Within->Begin || Span->End > Within->End))
          Span = std::nullopt;
        auto *ME = dyn_cast_or_null<MemberExpr>(U.E);
        // before the declaration around the use that stands in the file's scope or directly in
        // the innermost block of the template's own namespaces the use is in: the definition goes
        // after the aliases that block's printed definitions declare (its caller's, when the
        // caller was printed), with the namespaces not open there reopened
        std::vector<const Decl *> Around{U.In};
        for (const DeclContext *DC = U.In->getLexicalDeclContext(); !DC->isTranslationUnit();
             DC = DC->getLexicalParent())
          Around.push_back(cast<Decl>(DC));
        unsigned Open = 0;
        const Decl *Top = Around.back();
        for (auto It = Around.rbegin(); It != Around.rend(); ++It, ++Open) {
          auto *N = dyn_cast<NamespaceDecl>(*It);
          if (!N || Open == Namespaces->size() || N->getName() != (*Namespaces)[Open]) {
            Top = *It;
            break;
          }
        }
        auto Begin = Main.offset(Top->getBeginLoc());
        std::optional<std::string> Then = "";
        if (Span && Whole)
          Then = operands(Op, !SM || !SM->isInstance() || SM->isConst() || Pr.Rvalue);
        else if (Span && SM && SM->isInstance())
          Then = Op ? operatorCall(Op, SM->isConst() || Pr.Rvalue, *Span)
                    : objectCall(ME, U.Call, SM->isConst() || Pr.Rvalue, *Span);
        if (Operator && !Whole && !CallOperator)
          Why = "an operator not called by its sign (`a.operator+(b)`, its address)";
        else if (!plainCode(U.In))
          Why = "named from template code";
        else if (!Span || !Begin)
          Why = "a reference not written in the file's own text";
        else if (!Then)
          Why = Whole ? "an operator's operands not written in the file, or a postfix `++`/`--`"
                      : "a member's reference that is no call through an object written in the file";
        else if (!(SM && SM->isInstance()) && ((ME && ME->getBase()->HasSideEffects(Ctx)) ||
                                               (Op && !Whole && Op->getArg(0)->HasSideEffects(Ctx))))
          // a static member's call drops its object's text (a non-static one's moves to `self`)
          Why = "a static member called through an object whose evaluation does something";
        if (!Why.empty())
          break;
        // a generic lambda's instantiations share their text: one reference, to one specialization
        auto [Owned, New] = Owner.insert({{Span->Begin, Span->End}, S});
        if (Owned->second != S) {
          Why = "one reference resolved to two specializations";
          break;
        }
        if (New)
          Pr.Refs.push_back({Span->Begin, Span->End, *Then});
        Pr.First = std::min(Pr.First, Span->Begin);
        if (*Begin < Pr.At) {
          Pr.At = *Begin;
          Pr.Open = Open;
        }
      }
      if (Why.empty() && Pr.Refs.empty())
        Why = "no reference";
      else if (Why.empty() && Pr.At < Body->End)
        Why = "called before its template's body";
      if (!Why.empty())
        break;
      Specs.push_back(std::move(Pr));
    }
    if (!Why.empty()) {
      keep(P, Why);
      continue;
    }
    if (std::any_of(Specs.begin(), Specs.end(), [](const Printed &Pr) {
          const FunctionDecl *Def = nullptr;
          return !Pr.S->hasBody(Def) || !calleePrintable(Def);
        })) {
      keep(P, "not printable: a closure's type, a lambda's parameter pack, parameters of one name, an undeduced return type");
      continue;
    }
    // several argument lists: a fresh name each, numbered in the order of their first reference
    std::sort(Specs.begin(), Specs.end(), [](const Printed &A, const Printed &B) { return A.First < B.First; });
    for (unsigned K = 0; K < Specs.size(); ++K) {
      std::string Base = "__plain_" +
                         (CallOperator ? std::string("call") : Operator ? OperatorName : P->getName().str()) +
                         (Specs.size() > 1 ? "_" + std::to_string(K + 1) : "");
      std::string Name = Base;
      for (unsigned N = 1; Main.contains(Name) || Taken.count(Name); ++N)
        Name = Base + std::to_string(N);
      Taken.insert(Name);
      Specs[K].Fresh = Name;
    }
    Templates.push_back({P, {Body->Begin, Body->End}, *Namespaces, std::move(Specs)});
  }
  // a reference whose text holds another's (`a[i] + b`, `a.f().g(`) would be written again
  // with the other's text as it was, naming a template whose body goes: it waits a level
  std::vector<std::pair<unsigned, unsigned>> Spans;
  for (const Template &T : Templates)
    for (const Printed &Pr : T.Specs)
      for (const Ref &R : Pr.Refs)
        Spans.push_back({R.Begin, R.End});
  std::sort(Spans.begin(), Spans.end());
  auto holds = [&](const Ref &R) {
    for (auto It = std::lower_bound(Spans.begin(), Spans.end(), std::make_pair(R.Begin, 0u));
         It != Spans.end() && It->first < R.End; ++It)
      if (It->second <= R.End && *It != std::make_pair(R.Begin, R.End))
        return true;
    return false;
  };
  std::vector<Template> Printable;
  for (Template &T : Templates) {
    bool Holds = std::any_of(T.Specs.begin(), T.Specs.end(), [&](const Printed &Pr) {
      return std::any_of(Pr.Refs.begin(), Pr.Refs.end(), holds);
    });
    if (Holds) {
      keep(T.Pattern, "a reference holds a call of another printed function");
      continue;
    }
    Printable.push_back(std::move(T));
  }
  Templates = std::move(Printable);
  // printed in the order of where they go, so that a definition names the types one before it
  // (in its namespaces or enclosing ones) aliased through that one's aliases: within one item,
  // or shared by several items, each of which declares them (`LevelAliases`)
  std::vector<std::pair<unsigned, unsigned>> Order;
  for (unsigned T = 0; T < Templates.size(); ++T)
    for (unsigned K = 0; K < Templates[T].Specs.size(); ++K)
      Order.push_back({T, K});
  std::stable_sort(Order.begin(), Order.end(), [&](auto A, auto B) {
    return Templates[A.first].Specs[A.second].At < Templates[B.first].Specs[B.second].At;
  });
  for (auto [T, K] : Order) {
    Printed &Pr = Templates[T].Specs[K];
    const FunctionDecl *Def = nullptr;
    Pr.S->hasBody(Def);
    Pr.Text = calleeDefinition(Ctx, Def, Pr.Fresh, Pr.Rvalue, NextAlias, NextClosure, visibleAliases(Pr.At, Templates[T].Namespaces), Level,
                               Place{Pr.At, Templates[T].Namespaces, Pr.Open});
  }
  llvm::json::Array Out;
  for (const Template &T : Templates)
    for (const Printed &Pr : T.Specs) {
      std::string Qualified;
      for (const auto &N : T.Namespaces)
        Qualified += "::" + N;
      Qualified += "::" + Pr.Fresh;
      llvm::json::Array Refs, Opens;
      for (const Ref &R : Pr.Refs)
        Refs.push_back(llvm::json::Array{R.Begin, R.End, Qualified + R.Then});
      for (auto &[B, E, Text] : Pr.Opens)
        Opens.push_back(llvm::json::Array{B, E, Text});
      Out.push_back(llvm::json::Object{
          {"name", Qualified},
          {"body", llvm::json::Array{T.Body.first, T.Body.second}},
          {"at", Pr.At},
          {"namespaces", llvm::json::Array(std::vector<std::string>(T.Namespaces.begin() + Pr.Open, T.Namespaces.end()))},
          {"uses", std::move(Refs)},
          {"opens", std::move(Opens)},
          {"aliases", definitionAliases(Pr.Text)},
          {"text", Pr.Text.Text}});
    }
  return Out;
}

// A non-static member's call `obj.f(a)`, `p->f(a)`, `f(a)` as a free function's: what follows
// the fresh name, `(obj, ` / `(*p, ` / `(*this, ` (no comma without an argument written), and
// `Span` widened to the call's `(`. Nullopt: not a call written as such, an object that is a
// temporary bound to a non-const reference, or one not written in the file.
std::optional<std::string> Footprint::objectCall(const MemberExpr *ME, const CallExpr *Call, bool Const,
                                                 Span &Ref) {
  if (!ME || !Call)
    return std::nullopt;
  const Expr *Base = ME->getBase();
  std::string Object = "*this";
  if (!isa<CXXThisExpr>(Base->IgnoreParenImpCasts())) {
    if (!ME->isArrow() && !Const && temporary(Base))
      return std::nullopt;
    auto B = Main.plain(Base->getSourceRange()) ? Main.span(Base->getSourceRange(), false) : std::nullopt;
    if (!B || B->End > Ref.End)
      return std::nullopt;
    Object = (ME->isArrow() ? "*" : "") + Main.Text.substr(B->Begin, B->End - B->Begin).str();
  }
  return openCall(Object, Call->arg_begin(), Call->arg_end(), Ref);
}

// `obj(a)`, a call of `operator()`, as a free function's (`__plain_call`): what follows the fresh
// name, `(obj, ` (no comma without an argument written), `Ref` (the object's text) widened to the
// call's `(`. Nullopt: a temporary bound to a non-const reference, no `(` written after the object.
std::optional<std::string> Footprint::operatorCall(const CXXOperatorCallExpr *Call, bool Const, Span &Ref) {
  if (!Const && temporary(Call->getArg(0)))
    return std::nullopt;
  std::string Object = Main.Text.substr(Ref.Begin, Ref.End - Ref.Begin).str();
  return openCall(Object, Call->arg_begin() + 1, Call->arg_end(), Ref);
}

// `a[i]`, `a + b`, `-a` as a call of the operator's printed function: what follows its fresh
// name, `(a, i)`, each operand's text as written (a member's object first, its `self`). Nullopt:
// an operand not written in the file, a postfix `++`/`--` (its second operand is none), a
// non-const member's object a temporary.
std::optional<std::string> Footprint::operands(const CXXOperatorCallExpr *Call, bool Const) {
  bool Binary = Call->getNumArgs() == 2 && (Call->isInfixBinaryOp() || Call->getOperator() == OO_Subscript);
  if (!Binary && Call->getNumArgs() != 1)
    return std::nullopt;
  if (!Const && temporary(Call->getArg(0)))
    return std::nullopt;
  std::string Out = "(";
  for (const Expr *A : Call->arguments()) {
    auto S = Main.plain(A->getSourceRange()) ? Main.span(A->getSourceRange(), false) : std::nullopt;
    if (!S)
      return std::nullopt;
    Out += (Out.size() > 1 ? ", " : "") + Main.Text.substr(S->Begin, S->End - S->Begin).str();
  }
  return Out + ")";
}

// What follows a free function's fresh name for a call on `Object` with the arguments
// [Begin, End): `(Object, ` (no comma without an argument written), `Ref` widened to the call's
// `(`. Nullopt: no `(` written after `Ref`.
std::optional<std::string> Footprint::openCall(const std::string &Object, CallExpr::const_arg_iterator Begin,
                                               CallExpr::const_arg_iterator End, Span &Ref) {
  unsigned I = Ref.End;
  while (I < Main.size() && isspace(static_cast<unsigned char>(Main.Text[I])))
    ++I;
  if (I == Main.size() || Main.Text[I] != '(')
    return std::nullopt;
  Ref.End = I + 1;
  bool Arguments = std::any_of(Begin, End, [](const Expr *A) { return !isa<CXXDefaultArgExpr>(A); });
  return "(" + Object + (Arguments ? ", " : "");
}

// ----- the run -----

void Footprint::run(llvm::raw_ostream &OS) {
  collect(Ctx.getTranslationUnitDecl(), -1);
  conditions();  // first: the walk of patterns skips the branches no instantiation takes
  findKernels();
  llvm::json::Object Out{{"size", Main.size()}};
  if (KernelNames.empty()) {
    Out["error"] = Wanted.empty() ? "no kernel in the translation unit" : "no kernel has the name asked for";
    OS << llvm::json::Value(std::move(Out)) << "\n";
    return;
  }
  Instantiations I(Main);
  I.TraverseDecl(Ctx.getTranslationUnitDecl());
  for (Decl *D : I.Found) {
    // one that makes no kept kernel exist (a launcher whose kernel is now plain) is no root: it
    // may go, with what only it needs
    if (!launches(D))
      if (auto S = statementOf(D)) {
        IdleSpans.insert({S->Begin, S->End});  // a class's and its members' are one text
        continue;
      }
    Roots.push_back(D);
    reachSpelled(D);
  }
  for (const Decl *R : Roots) {
    reach(R);
    if (auto *FD = dyn_cast<FunctionDecl>(R))
      if (auto *Written = FD->getTemplateSpecializationArgsAsWritten())
        for (const auto &A : Written->arguments())
          Refs.walkTemplateArgumentLoc(A);
  }
  drain();
  // a using-declaration stays when what it brings in does
  for (auto &E : Entries)
    for (const Decl *D : E.Decls)
      if (auto *U = dyn_cast<UsingDecl>(D))
        for (auto *S : U->shadows())
          if (Reached.contains(S->getTargetDecl()) || Reached.contains(S))
            markOffset(E.Range.Begin);

  llvm::json::Array Kernels;
  for (auto &K : KernelNames)
    Kernels.push_back(K);
  llvm::json::Array Listed;
  for (auto &E : Entries) {
    std::string Kind, Name;
    for (const Decl *D : E.Decls) {
      Kind += (Kind.empty() ? "" : ",") + kindOf(D);
      Name += (Name.empty() ? "" : ",") + nameOf(D);
    }
    Listed.push_back(llvm::json::Object{{"begin", E.Range.Begin}, {"end", E.Range.End}, {"kind", Kind},
                                        {"name", Name}, {"parent", E.Parent}, {"reached", E.Reached}});
  }
  Out["kernels"] = std::move(Kernels);
  Out["entries"] = std::move(Listed);
  Out["conditions"] = std::move(Conditions);
  NextAlias = Main.nextNumber("__plain_t");
  NextClosure = Main.nextNumber("__plain_closure_");
  fileAliases();
  // the callees first: they go before the kernels, at the end of the file, which may name the
  // aliases they declare
  Out["callees"] = plainCallees();
  Out["plain"] = plainKernels();
  llvm::json::Array Declared;
  for (const FileAlias &A : Aliases)
    if (MovedAliases.count(A.Name))
      Declared.push_back(llvm::json::Object{{"name", A.Name},
                                            {"at", *A.Hoist},
                                            {"namespaces", llvm::json::Array()},
                                            {"text", Main.Text.substr(A.Begin, A.End - A.Begin)},
                                            {"from", llvm::json::Array{A.Begin, A.End}}});
  for (const LevelAlias &A : Level.All)
    Declared.push_back(llvm::json::Object{
        {"name", A.Name},
        {"at", A.Where.At},
        {"namespaces", llvm::json::Array(std::vector<std::string>(A.Where.Namespaces.begin() + A.Where.Open,
                                                                  A.Where.Namespaces.end()))},
        {"text", A.Text}});
  Out["aliases"] = std::move(Declared);
  Out["kept"] = std::move(Kept);
  llvm::json::Array Idle;
  for (auto [Begin, End] : IdleSpans)
    Idle.push_back(llvm::json::Array{Begin, End});
  Out["idle"] = std::move(Idle);
  OS << llvm::json::Value(std::move(Out)) << "\n";
}

class Consumer : public ASTConsumer {
public:
  Consumer(CompilerInstance &CI, std::vector<std::string> Kernels) : CI(CI), Kernels(std::move(Kernels)) {}
  // After Sema's end-of-TU instantiations: the AST holds every instantiation the TU needs.
  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (CI.getDiagnostics().hasErrorOccurred()) {
      llvm::outs() << llvm::json::Value(llvm::json::Object{{"error", "the file does not compile"}}) << "\n";
      return;
    }
    Footprint(Ctx, Kernels).run(llvm::outs());
  }

private:
  CompilerInstance &CI;
  std::vector<std::string> Kernels;
};

class Action : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, StringRef) override {
    return std::make_unique<Consumer>(CI, Kernels);
  }
  // kernel=NAME (mangled, qualified or plain; repeatable): the kernels kept; none: all of them
  bool ParseArgs(const CompilerInstance &, const std::vector<std::string> &Args) override {
    for (const auto &A : Args)
      if (StringRef(A).starts_with("kernel="))
        Kernels.push_back(A.substr(7));
    return true;
  }
  // after the main action: the front end runs as usual, templates are instantiated
  ActionType getActionType() override { return AddAfterMainAction; }

private:
  std::vector<std::string> Kernels;
};

} // namespace

static FrontendPluginRegistry::Add<Action> X("footprint", "the declarations the kept kernels reach");

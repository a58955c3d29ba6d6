/** A program that uses jrdma: it needs the verbs API only; the soft device is found as a service provider. */
module com.example.hello {
    requires io.jrdma.verbs;
}

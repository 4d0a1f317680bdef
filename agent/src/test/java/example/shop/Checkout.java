package example.shop;

/** The controller's side of {@link OrderDesk}: the frame a commit's statement has above the proxy. */
public final class Checkout {
    private Checkout() { }

    public static void submit(OrderDesk desk) {
        desk.place("SKU-1");
    }
}
